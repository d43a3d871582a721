import { randomUUID } from 'node:crypto';
import { generateSecret, generateURI } from 'otplib';
import QRCode from 'qrcode';
import { verifyFreshProof, type FreshProof, type FreshProofDeps } from '../../authn/fresh-proof.js';
import { confirmWithCode, newRecoveryCodes, recoveryCodeDigest } from '../../authn/second-factor.js';
import type { RequestContext } from '../../authz/request-context.js';
import { badRequest, issue, notFound, validationFailed } from '../../errors/app-error.js';
import {
    deleteAuthenticator, deleteRecoveryCodesOfUser, findAuthenticator, findRealmMfaSettings, findUserForEnrolment,
    insertAuthenticator, listAuthenticatorsOfUser, replaceRecoveryCodes, type AuthenticatorRow,
} from '../../storage/authenticators.js';
import type { Db } from '../resource/context.js';
import { recordEvent } from '../events.js';
import { writeTransaction, type WriteTransactionDeps } from '../../storage/write-transaction.js';
import { authorizeOnUser } from './access.js';

/** The REST record of an authenticator (API.md §7): never its seed. */
export interface AuthenticatorRecord {
    id: string;
    type: string;
    name: string;
    confirmed: boolean;
    userId: string;
    realmId: string;
    createdAt: string;
    updatedAt: string;
    /** a passkey's (type `webauthn`): the transports and AAGUID its authenticator reported, when it last signed in */
    transports?: string[];
    aaguid?: string | null;
    lastUsedAt?: string | null;
}

export interface AuthenticatorDeps extends FreshProofDeps, WriteTransactionDeps {
    db: Db;
}

const ENTITY = 'user_authenticator';

/** The `user_authenticator.created|updated|deleted` entry of a write, in its transaction (spec Events 4); never the seed. */
export function recordWrite(tx: Db, deps: AuthenticatorDeps, ctx: RequestContext, action: 'created' | 'updated' | 'deleted', record: AuthenticatorRecord): Promise<void> {
    return recordEvent(tx, deps.dialect, ctx, { name: `${ENTITY}.${action}`, refType: ENTITY, refId: record.id, realmId: record.realmId, data: { ...record } });
}

/** A write under the administrative API's one transaction helper (row lock, constraint mapping). */
export function write<T>(deps: AuthenticatorDeps, ctx: RequestContext, work: (tx: Db) => Promise<T>): Promise<T> {
    return writeTransaction(deps, { preload: () => ctx.authorizer() }, (tx) => work(tx));
}

export function authenticatorRecord(row: AuthenticatorRow): AuthenticatorRecord {
    return {
        id: row.id, type: row.type, name: row.name, confirmed: row.confirmed, userId: row.userId, realmId: row.realmId,
        createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
        ...(row.type === 'webauthn' ? { transports: row.transports, aaguid: row.aaguid, lastUsedAt: row.lastUsedAt?.toISOString() ?? null } : {}),
    };
}

/** The user a request names (`userId`), or the calling user. */
export async function targetUser(deps: AuthenticatorDeps, ctx: RequestContext, userId: string | undefined) {
    const identity = ctx.actor.identity;
    const id = userId ?? (identity?.type === 'user' ? identity.id : undefined);
    if (!id) throw validationFailed([issue(['userId'], 'required', 'names the user (a client caller has no authenticators of its own)')]);
    const user = await findUserForEnrolment(deps.db, id);
    if (!user) throw userId === undefined ? notFound('user') : validationFailed([issue(['userId'], 'invalid_reference', 'names no user')]);
    return user;
}

/** An authenticator the caller may see (404 otherwise, as for one that does not exist). */
async function reachable(deps: AuthenticatorDeps, ctx: RequestContext, id: string, action: 'read' | 'write'): Promise<AuthenticatorRow> {
    const row = await findAuthenticator(deps.db, id);
    if (!row) throw notFound('authenticator');
    await authorizeOnUser(ctx, { id: row.userId, realmId: row.realmId }, action);
    return row;
}

/**
 * A user changing its own authenticators proves it is the person, not only a bearer's holder
 * (authn/fresh-proof.ts), as a change of its own password does. An administrator acting on
 * another user's authenticators with `user_update` is not asked for that user's password (it has
 * none to give; Keycloak's administrator removes credentials the same way): its permission is the proof.
 */
export async function assertFreshProof(deps: AuthenticatorDeps, ctx: RequestContext, user: { userId: string; realmId: string }, proof: FreshProof): Promise<void> {
    const identity = ctx.actor.identity;
    if (identity?.type !== 'user' || identity.id !== user.userId) return;
    await verifyFreshProof(deps, deps.db, user, proof);
}

/** The enrolment answer: the seed, shown this once (the record never carries it). */
export interface Enrolment {
    data: AuthenticatorRecord;
    meta: { secret: string; uri: string; qrCode: string };
}

/**
 * Enrols a TOTP authenticator (RFC 6238): the server generates the seed (20 random bytes, base32,
 * RFC 4226 §4 R6), seals it under the realm's encryption key, and answers it once as an
 * `otpauth://totp/` URI (issuer: the realm's display name or name; label: the user name) and as
 * that URI's QR code (an SVG data URL). Unconfirmed until a current code proves the app holds it.
 */
export async function enrolAuthenticator(deps: AuthenticatorDeps, ctx: RequestContext, input: { name: string; userId?: string }, proof: FreshProof): Promise<Enrolment> {
    const user = await targetUser(deps, ctx, input.userId);
    await authorizeOnUser(ctx, user, 'write');
    await assertFreshProof(deps, ctx, { userId: user.id, realmId: user.realmId }, proof);
    const realm = await findRealmMfaSettings(deps.db, user.realmId);
    const secret = generateSecret();
    const id = randomUUID();
    const record = await write(deps, ctx, async (tx) => {
        await insertAuthenticator(tx, deps.dialect, {
            id, userId: user.id, realmId: user.realmId, name: input.name, secret: await deps.secrets.encrypt(tx, user.realmId, secret),
        });
        const created = authenticatorRecord((await findAuthenticator(tx, id))!);
        await recordWrite(tx, deps, ctx, 'created', created);
        return created;
    });
    const uri = generateURI({ issuer: realm?.displayName || realm?.name || 'realmgate', label: user.name, secret });
    const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M' });
    return {
        data: record,
        meta: { secret, uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` },
    };
}

/** The confirmation answer: the recovery codes, shown this once, and whether they replaced earlier ones. */
export interface Confirmation {
    data: AuthenticatorRecord;
    meta: { recoveryCodes: string[]; recoveryCodesReplaced: boolean };
}

/**
 * Confirms an authenticator with a current code and issues the user's recovery codes, shown this
 * once, stored as SHA-256 digests (single use); a new confirmation replaces earlier codes, and the
 * answer says so (`recoveryCodesReplaced`), as the codes a person printed stop working. A wrong
 * code counts as a failed authentication (spec Limits).
 */
export async function confirmAuthenticator(deps: AuthenticatorDeps, ctx: RequestContext, id: string, code: string, proof: FreshProof): Promise<Confirmation> {
    const row = await reachable(deps, ctx, id, 'write');
    if (row.confirmed) throw badRequest('The authenticator is confirmed already.');
    await assertFreshProof(deps, ctx, row, proof);
    await confirmWithCode(deps, deps.db, row, code);
    const recoveryCodes = newRecoveryCodes();
    return write(deps, ctx, async (tx) => {
        const replaced = await replaceRecoveryCodes(tx, deps.dialect, { id: row.userId, realmId: row.realmId },
            recoveryCodes.map((value) => ({ id: randomUUID(), digest: recoveryCodeDigest(value) })));
        const confirmed = authenticatorRecord((await findAuthenticator(tx, row.id))!);
        await recordWrite(tx, deps, ctx, 'updated', confirmed);
        return { data: confirmed, meta: { recoveryCodes, recoveryCodesReplaced: replaced > 0 } };
    });
}

/** The authenticators of a user (the caller's own by default). */
export async function listAuthenticators(deps: AuthenticatorDeps, ctx: RequestContext, userId: string | undefined): Promise<AuthenticatorRecord[]> {
    const user = await targetUser(deps, ctx, userId);
    await authorizeOnUser(ctx, user, 'read');
    return (await listAuthenticatorsOfUser(deps.db, user.id)).map(authenticatorRecord);
}

export async function readAuthenticator(deps: AuthenticatorDeps, ctx: RequestContext, id: string): Promise<AuthenticatorRecord> {
    return authenticatorRecord(await reachable(deps, ctx, id, 'read'));
}

/** Removes an authenticator; with the user's last one go the recovery codes (nothing left to recover). */
export async function removeAuthenticator(deps: AuthenticatorDeps, ctx: RequestContext, id: string, proof: FreshProof): Promise<AuthenticatorRecord> {
    const row = await reachable(deps, ctx, id, 'write');
    await assertFreshProof(deps, ctx, row, proof);
    const record = authenticatorRecord(row);
    await write(deps, ctx, async (tx) => {
        await deleteAuthenticator(tx, row.id);
        if ((await listAuthenticatorsOfUser(tx, row.userId)).length === 0) await deleteRecoveryCodesOfUser(tx, row.userId);
        await recordWrite(tx, deps, ctx, 'deleted', record);
    });
    return record;
}
