import { randomUUID } from 'node:crypto';
import { BuiltInPolicyType, type PolicyData } from '@realmgate/access';
import { PermissionName, RealmScope } from '@realmgate/core';
import { forbidden } from '../errors/app-error.js';
import type { RequestAuthorizer } from './authorizer.js';

/** The definition a grant names (spec model line 1: name, realm_id, client_id). */
export interface GrantedDefinition {
    name: string;
    realmId: string | null;
    clientId: string | null;
}

/** One grant as it would exist after the write: its definition and its realm reach. */
export interface DelegatedGrant {
    definition: GrantedDefinition;
    realmScope: RealmScope;
}

/**
 * The realms a grant of `scope` held by a holder of realm `holderRealm` can reach (spec "Realm
 * reach values"), as resource realms to test the actor against:
 * - own → the holder's realm; ownOrNull → it and the global rows (null); none → nothing;
 * - any → additionally a fresh random realm: no actor owns it, so only an `any` grant reaches it.
 * A global holder (a global role) is held by identities of every realm, so its "own realm" can be
 * any realm at all: it is stood in for by a fresh realm too.
 */
export function realmsReachedBy(scope: RealmScope, holderRealm: string | null): (string | null)[] {
    if (scope === RealmScope.NONE) return [];
    const own = holderRealm ?? randomUUID();
    if (scope === RealmScope.OWN) return [own];
    if (scope === RealmScope.OWN_OR_NULL) return [own, null];
    return [own, null, randomUUID()];
}

/**
 * Evaluation data for "may the actor use the definition at this realm at all". Only the realm and
 * the name of an attribute no policy lists are given: a policy that needs the row (attributes)
 * stays pending and denies, so an actor whose own grant is restricted per row cannot hand out an
 * unrestricted one; a definition-layer deny-list of attribute names (the self-manage denylists of
 * API.md §5) does not stop it, since the grantee is held to the same definition layer.
 */
function probe(realm: string | null): PolicyData {
    return { [BuiltInPolicyType.REALM_MATCH]: realm, [BuiltInPolicyType.ATTRIBUTE_NAMES]: [`unlisted-${randomUUID()}`] };
}

/**
 * Whoever may remove the definition's policy bindings can already make it unrestricted for every
 * identity (spec model line 4), so granting it gives away nothing it does not control. Without this
 * a permission created through the API (bound to system.default, held by nobody) could never be
 * granted at all. Built-in permissions are global, so only reach over global rows counts for them.
 */
function controlsDefinition(authorizer: RequestAuthorizer, definition: GrantedDefinition): boolean {
    return authorizer.evaluator.allows({ name: PermissionName.PERMISSION_POLICY_DELETE, data: probe(definition.realmId) });
}

/**
 * Whether the actor may itself use the definition in every realm the grant reaches, asked of the
 * request's own evaluator (no second copy of any rule): reach, junction policies and the client
 * narrowing of spec Authentication rule 8 all come with it.
 */
function actorCovers(authorizer: RequestAuthorizer, grant: DelegatedGrant, holderRealm: string | null): boolean {
    const { name, realmId, clientId } = grant.definition;
    const realms = realmsReachedBy(grant.realmScope, holderRealm);
    if (realms.length === 0) return true;
    return realms.every((realm) => authorizer.evaluator.allows({ name, realmId, clientId, data: probe(realm) })) ||
        controlsDefinition(authorizer, grant.definition);
}

/**
 * The definition's name as a refusal may show it: only to an actor whose permission_read reaches the
 * definition's realm. A realm administrator of A who names a permission of realm B by id learned its
 * name from the 403 (spec "Realm reach values": another realm's rows are not readable; the generated
 * realm-isolation suite found it).
 */
function nameShownTo(authorizer: RequestAuthorizer, definition: GrantedDefinition): string {
    return authorizer.evaluator.allows({ name: PermissionName.PERMISSION_READ, data: probe(definition.realmId) }) ? definition.name : 'a permission';
}

/**
 * Delegation rule (a) (spec Authentication rules 8–11): a grant row written by an actor never exceeds the actor's
 * own reach. 403 otherwise.
 */
export function assertCanGrant(authorizer: RequestAuthorizer, grant: DelegatedGrant, holderRealm: string | null): void {
    if (!actorCovers(authorizer, grant, holderRealm)) {
        throw forbidden(`You cannot grant ${nameShownTo(authorizer, grant.definition)} at reach ${grant.realmScope}: it exceeds your own reach.`);
    }
}

/**
 * Delegation rule (b): assigning a role hands out every grant the role carries, so the actor must
 * hold each of them for the holder (the same test as rule (a), per carried grant: an `own` grant
 * is checked at the holder's realm, a wider one at every realm it reaches). 403 otherwise.
 */
export function assertCanAssignRole(authorizer: RequestAuthorizer, carried: readonly DelegatedGrant[], holderRealm: string | null): void {
    const missing = carried.find((grant) => !actorCovers(authorizer, grant, holderRealm));
    if (missing) {
        throw forbidden(`You cannot assign this role: it carries ${nameShownTo(authorizer, missing.definition)} at reach ${missing.realmScope}, beyond your own reach.`);
    }
}
