import { BuiltInPolicyType } from '@realmgate/access';
import { PermissionName } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { notFound } from '../../errors/app-error.js';

/**
 * Who may see and manage a user's authenticators (API.md §7 `/user-authenticators`), decided by
 * the access engine as every collection's actions are, on the USER the authenticator belongs to
 * (REALM_MATCH = the user's realm, so a caller reaching another realm never sees them):
 * - reading: the user itself (as GET /users/@me needs no permission), or `user_read` on the user;
 *   anyone else is answered 404, as for a row outside the caller's reach;
 * - enrolling, confirming, deleting: `user_update` on the user (an administrator), or on oneself
 *   the self-manage fallback of every self-service credential change (spec Authentication rules 8–11:
 *   `user_self_manage`, with `authenticators` as the attribute name its denylist policy judges).
 */
export async function authorizeOnUser(ctx: RequestContext, user: { id: string; realmId: string }, action: 'read' | 'write'): Promise<void> {
    const identity = ctx.actor.identity;
    const self = identity?.type === 'user' && identity.id === user.id;
    const data = { realmMatch: user.realmId, [BuiltInPolicyType.ATTRIBUTES]: { id: user.id, realmId: user.realmId } };
    const authorizer = await ctx.authorizer();
    if (!self && !authorizer.allows(PermissionName.USER_READ, data)) throw notFound('authenticator');
    if (action === 'read') return;
    if (authorizer.allows(PermissionName.USER_UPDATE, data)) return;
    if (!self) await authorizer.assert(PermissionName.USER_UPDATE, data);
    await authorizer.assert(PermissionName.USER_SELF_MANAGE, { ...data, [BuiltInPolicyType.ATTRIBUTE_NAMES]: ['authenticators'] });
}
