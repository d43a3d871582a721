import { RealmScope } from '@realmgate/core';
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
    if (scope === RealmScope.ANY) return true;
    if (scope === RealmScope.NONE) return false;
    const own = ownRealmValues(identity);
    if (own.length === 0) return false;
    if (Array.isArray(resource)) {
        return resource.length > 0 && resource.every((realm) => reachesOne(scope, realm, own));
    }
    return reachesOne(scope, resource, own);
}

/** The same rule as a condition over the row's realm column (spec consumer rule 11). */
export function lowerRealmReach(scope: RealmScope, column: string, identity: PolicyIdentity | null): Lowered {
    if (scope === RealmScope.ANY) return true;
    if (scope === RealmScope.NONE) return false;
    const own = ownRealmValues(identity);
    if (own.length === 0) return false;
    const inOwn = own.length === 1 ? field('eq', column, own[0]!) : field('in', column, own);
    return scope === RealmScope.OWN_OR_NULL ? orLowered([inOwn, field('eq', column, null)]) : inOwn;
}
