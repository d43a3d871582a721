import { issue, validationFailed } from '../errors/app-error.js';
import { assertCanAssignRole } from '../authz/delegation.js';
import type { RequestContext } from '../authz/request-context.js';
import { defaultRoleIdsOf, rolesOfRealm } from '../storage/default-roles.js';
import { carriedGrants } from './junctions/rules.js';
import type { Input, Tx } from './resource/context.js';

/*
 * The rules of a realm's `defaultRoleIds` (API.md §8): what a realm write may put on the list. The
 * list itself is written by the resource engine (an idList field) and granted by
 * storage/default-roles.ts.
 */

/** The ids a body names, in the lower-case form ids are stored in (any case names the same UUID, RFC 9562 §4). */
const idsOf = (input: Input): string[] | undefined => (Array.isArray(input.defaultRoleIds) ? input.defaultRoleIds.map((id) => String(id).toLowerCase()) : undefined);

/**
 * A realm being created has no roles yet, so its list can name none: only an empty list (a realm
 * whose new users receive nothing) is meaningful. Its own default role joins the list in afterCreate.
 */
export function refuseDefaultRolesOfNewRealm(input: Input): void {
    const ids = idsOf(input);
    if (ids && ids.length > 0) {
        throw validationFailed(ids.map((_, index) => issue(['defaultRoleIds', index], 'invalid_reference', 'a new realm has no roles yet')));
    }
}

/**
 * Every id must name a role of this realm (a global role or another realm's is refused, 400 with an
 * issue per id), and every role added must be one the caller could assign through `/user-roles`
 * (delegation rule (b), authz/delegation.ts): the list hands the role to every future user of the
 * realm, so it may not carry a grant beyond the caller's own reach. Roles already on the list are
 * not checked again: removing them, or keeping them, gives nothing away.
 */
export async function assertDefaultRoles(ctx: RequestContext, realmId: string, input: Input, tx: Tx): Promise<void> {
    const ids = idsOf(input);
    if (!ids) return;
    const ofRealm = await rolesOfRealm(tx, realmId, ids);
    const issues = ids.flatMap((id, index) => (ofRealm.has(id) ? [] : [issue(['defaultRoleIds', index], 'invalid_reference', 'names no role of this realm')]));
    if (issues.length > 0) throw validationFailed(issues);
    const current = new Set(await defaultRoleIdsOf(tx, realmId));
    const authorizer = await ctx.authorizer();
    for (const id of ids) {
        if (!current.has(id)) assertCanAssignRole(authorizer, await carriedGrants(tx, id), realmId);
    }
}
