/**
 * Realm reach of a grant (spec "Realm reach values").
 * own: the actor's realm only, never global rows (the default of a junction row);
 * ownOrNull: the actor's realm and global rows; any: every realm; none: no realm.
 */
export const RealmScope = {
    OWN: 'own',
    OWN_OR_NULL: 'ownOrNull',
    ANY: 'any',
    NONE: 'none',
} as const;

export type RealmScope = typeof RealmScope[keyof typeof RealmScope];

export const REALM_SCOPES: readonly RealmScope[] = Object.freeze(Object.values(RealmScope));

export function isRealmScope(value: unknown): value is RealmScope {
    return typeof value === 'string' && (REALM_SCOPES as readonly string[]).includes(value);
}
