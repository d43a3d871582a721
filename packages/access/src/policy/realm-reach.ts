import { isRealmScope, RealmScope } from '@realmgate/core';
import { invalidInput } from '../errors.js';
import { field, orLowered, type Lowered } from './condition.js';
import type { PolicyIdentity, RealmMatchData } from './data.js';

/** The actor's own realm as it may appear in a resource realm value: its id, or its name. */
function ownRealmValues(identity: PolicyIdentity | null): string[] {
    if (!identity) return [];
    const values: string[] = [];
    if (identity.realmId !== null) values.push(identity.realmId);
    if (identity.realmName !== null && identity.realmName !== identity.realmId) values.push(identity.realmName);
    return values;
}

function checkScope(scope: unknown): void {
    // an unknown scope must never fall through to a permissive branch
    if (!isRealmScope(scope)) throw invalidInput(['scope'], "expected 'own', 'ownOrNull', 'any' or 'none'");
}

function reachesOne(scope: RealmScope, realm: string | null, own: readonly string[]): boolean {
    if (realm === null) {
        // a global row: only ownOrNull admits it, and only for an actor that has a realm
        return scope === RealmScope.OWN_OR_NULL && own.length > 0;
    }
    return own.includes(realm);
}

/**
 * Spec "Realm reach values": own admits the actor's realm and never global rows; ownOrNull adds
 * global rows; any admits every realm; none admits none. A realm-less actor satisfies neither own
 * nor ownOrNull, and master-realm membership adds nothing. A resource spanning several realms is
 * reached only when every one of them is.
 */
export function realmScopeReaches(scope: RealmScope, resource: RealmMatchData, identity: PolicyIdentity | null): boolean {
    checkScope(scope);
    if (scope === RealmScope.ANY) return true;
    if (scope === RealmScope.NONE) return false;
    const own = ownRealmValues(identity);
    if (own.length === 0) return false;
    if (resource === undefined) throw invalidInput(['resource'], 'expected a realm id, null or a list of them');
    if (Array.isArray(resource)) {
        return resource.length > 0 && resource.every((realm) => reachesOne(scope, realm, own));
    }
    return reachesOne(scope, resource, own);
}

/** The same rule as a condition over the row's realm column (spec consumer rule 11). */
export function lowerRealmReach(scope: RealmScope, column: string, identity: PolicyIdentity | null): Lowered {
    checkScope(scope);
    if (typeof column !== 'string' || column.length === 0) throw invalidInput(['column'], 'expected a row attribute name');
    if (scope === RealmScope.ANY) return true;
    if (scope === RealmScope.NONE) return false;
    const own = ownRealmValues(identity);
    if (own.length === 0) return false;
    const inOwn = own.length === 1 ? field('eq', column, own[0]!) : field('in', column, own);
    return scope === RealmScope.OWN_OR_NULL ? orLowered([inOwn, field('eq', column, null)]) : inOwn;
}
