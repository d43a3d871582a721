import { BuiltInPolicyType } from '@realmgate/access';
import { PermissionName } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { issue, notFound, validationFailed } from '../../errors/app-error.js';
import {
    deleteConsent, deleteIdentityLink, findConsent, findIdentityLink, findUserRealm, listConsentsOfUser, listIdentityLinksOfUser,
    sessionsOfUserThroughClient, userHasPassword, type ConsentRow, type IdentityLinkRow,
} from '../../storage/account-links.js';
import { writeTransaction, type WriteTransactionDeps } from '../../storage/write-transaction.js';
import type { SessionStore } from '../../tokens/sessions.js';
import type { Db } from '../resource/context.js';
import { recordEvent } from '../events.js';

/*
 * What a user granted and linked (API.md §7 `/user-consents`, `/user-identities`; the account console):
 * listed and withdrawn by the user itself in the account console — withdrawing narrows what the
 * account can do, so it needs no permission on oneself — or by an administrator holding user_read
 * (to list) and user_update (to withdraw) on the user, decided in the user's realm like every
 * user action (a caller outside that reach is answered 404, as for a row that does not exist).
 */

export interface AccountLinkDeps extends WriteTransactionDeps {
    db: Db;
    sessions: SessionStore;
}

export interface ConsentRecord {
    id: string; userId: string; clientId: string; realmId: string; scopes: string[];
    clientName: string; clientDisplayName: string | null; createdAt: string; updatedAt: string;
}

export interface IdentityLinkRecord {
    id: string; userId: string; realmId: string; providerId: string; providerName: string; providerDisplayName: string | null;
    protocol: string; subject: string; createdAt: string; updatedAt: string;
}

const consentRecord = (row: ConsentRow): ConsentRecord => ({ ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() });
const linkRecord = (row: IdentityLinkRow): IdentityLinkRecord => ({ ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() });

async function authorizeOnOwner(ctx: RequestContext, user: { id: string; realmId: string }, action: 'read' | 'delete', entity: string): Promise<void> {
    const identity = ctx.actor.identity;
    if (identity?.type === 'user' && identity.id === user.id) return;
    const data = { realmMatch: user.realmId, [BuiltInPolicyType.ATTRIBUTES]: { id: user.id, realmId: user.realmId } };
    const authorizer = await ctx.authorizer();
    if (!authorizer.allows(PermissionName.USER_READ, data)) throw notFound(entity);
    if (action === 'delete') await authorizer.assert(PermissionName.USER_UPDATE, data);
}

/** The user a list names (`userId`), or the calling user. */
async function listedUser(deps: AccountLinkDeps, ctx: RequestContext, userId: string | undefined, entity: string) {
    const identity = ctx.actor.identity;
    const id = userId ?? (identity?.type === 'user' ? identity.id : undefined);
    if (!id) throw validationFailed([issue(['userId'], 'required', 'names the user (a client caller has none of its own)')]);
    const user = await findUserRealm(deps.db, id);
    if (!user) throw userId === undefined ? notFound('user') : validationFailed([issue(['userId'], 'invalid_reference', 'names no user')]);
    await authorizeOnOwner(ctx, user, 'read', entity);
    return user;
}

export async function listConsents(deps: AccountLinkDeps, ctx: RequestContext, userId: string | undefined): Promise<ConsentRecord[]> {
    const user = await listedUser(deps, ctx, userId, 'user consent');
    return (await listConsentsOfUser(deps.db, user.id)).map(consentRecord);
}

/**
 * Withdraws a consent: the client asks again at its next authorization request (the consent page
 * is skipped only for remembered scopes, oauth2/authorize), and the sessions the user holds through
 * that client end with it, so its tokens stop working too (back-channel logout is told).
 */
export async function withdrawConsent(deps: AccountLinkDeps, ctx: RequestContext, id: string): Promise<ConsentRecord> {
    const row = await findConsent(deps.db, id);
    if (!row) throw notFound('user consent');
    await authorizeOnOwner(ctx, { id: row.userId, realmId: row.realmId }, 'delete', 'user consent');
    const record = consentRecord(row);
    await writeTransaction(deps, { preload: () => ctx.authorizer() }, async (tx) => {
        await deleteConsent(tx, row.id);
        await deps.sessions.endWhere(tx, sessionsOfUserThroughClient(row.userId, row.clientId));
        await recordEvent(tx, deps.handle.dialect, ctx, { name: 'user_consent.deleted', refType: 'user_consent', refId: row.id, realmId: row.realmId, data: { ...record } });
    });
    return record;
}

export async function listIdentityLinks(deps: AccountLinkDeps, ctx: RequestContext, userId: string | undefined): Promise<IdentityLinkRecord[]> {
    const user = await listedUser(deps, ctx, userId, 'user identity');
    return (await listIdentityLinksOfUser(deps.db, user.id)).map(linkRecord);
}

/**
 * Unlinks an upstream identity: the provider's next sign-in of that subject links or provisions
 * anew (federation/provision.ts). The last way in is kept: a user without a local password cannot
 * remove its last link (400), it would be locked out.
 */
export async function unlinkIdentity(deps: AccountLinkDeps, ctx: RequestContext, id: string): Promise<IdentityLinkRecord> {
    const row = await findIdentityLink(deps.db, id);
    if (!row) throw notFound('user identity');
    await authorizeOnOwner(ctx, { id: row.userId, realmId: row.realmId }, 'delete', 'user identity');
    if ((await listIdentityLinksOfUser(deps.db, row.userId)).length === 1 && !(await userHasPassword(deps.db, row.userId))) {
        throw validationFailed([issue(['id'], 'last_credential', 'is the account\'s only way to sign in: set a password first')]);
    }
    const record = linkRecord(row);
    await writeTransaction(deps, { preload: () => ctx.authorizer() }, async (tx) => {
        await deleteIdentityLink(tx, row.id);
        await recordEvent(tx, deps.handle.dialect, ctx, { name: 'user_identity.deleted', refType: 'user_identity', refId: row.id, realmId: row.realmId, data: { ...record } });
    });
    return record;
}
