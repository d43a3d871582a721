import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@realmgate/core';
import type { CatalogCache } from '../../authz/catalog-cache.js';
import { registrationContext } from '../../authz/registration-context.js';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError, notFound } from '../../errors/app-error.js';
import { randomToken, sha256Hex } from '../../secrets/digests.js';
import { secretsEqual } from '../../secrets/secret-box.js';
import { insertClientRegistration, registrationMatches, replaceRegistrationToken } from '../../storage/client-registrations.js';
import { spendInitialAccessToken } from '../../storage/initial-access-tokens.js';
import { findRealmByIdOrName, findRealmProtocolFlags, type RealmRef } from '../../storage/realms.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import { generateSecret } from '../clients/secret.js';
import type { ResourceDefinition, Tx } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { readEntity } from '../resource/read.js';
import { createEntity, deleteEntity, updateEntity } from '../resource/write.js';
import { metadataError, metadataOf, registeredFields, SECRET_METHODS } from './metadata.js';

export interface RegistrationDeps extends ResourceDeps {
    catalog: CatalogCache;
    /** PUBLIC_URL: the registration client URI starts with it */
    publicUrl: string;
    /** the clients' resource (domains/clients/definition.ts): every registered field is validated there */
    clients: ResourceDefinition;
    /** the clock of initial access token expiry (tests move it) */
    clock?: () => number;
}

/** Who calls: the realm of the path, the Bearer it presented, and the request for the event log. */
export interface RegistrationCall {
    realm: string;
    authorization: string | undefined;
    request: RequestContext['request'];
}

/** The path of the registration endpoint of a realm under PUBLIC_URL (RFC 7591 §3; discovery's `registration_endpoint`). */
function registrationEndpointPath(realmName: string): string {
    return `/realms/${encodeURIComponent(realmName)}/register-client`;
}

/** RFC 6750 §3.1: a missing, unknown, spent or expired token; the challenge names the Bearer scheme. */
function invalidToken(description: string): AppError {
    return new AppError(ErrorCode.INVALID_TOKEN, description, { challenge: 'Bearer error="invalid_token"' });
}

/** RFC 6750 §2.1: the token of an `Authorization: Bearer` header (the scheme is case-insensitive). */
function bearerOf(authorization: string | undefined): string {
    const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization?.trim() ?? '');
    if (!match) throw invalidToken('An access token is required as Authorization: Bearer.');
    return match[1]!;
}

/**
 * The realm of the path, when its registration is open (API.md §8 `dynamicRegistrationEnabled`):
 * unknown → 404; closed → 403 access_denied, for registration and management alike.
 */
async function openRealm(deps: RegistrationDeps, name: string): Promise<RealmRef> {
    const realm = await findRealmByIdOrName(deps.db, name);
    const flags = realm ? await findRealmProtocolFlags(deps.db, realm.id) : undefined;
    if (!realm || !flags) throw notFound('realm');
    if (!flags.dynamicRegistrationEnabled) throw new AppError(ErrorCode.ACCESS_DENIED, 'Dynamic client registration is not enabled for this realm.');
    return realm;
}

/** The credentials and management members of an answer (RFC 7591 §3.2.1, RFC 7592 §3). */
interface Credentials {
    secret: string | null;
    registrationAccessToken?: string;
}

function answerOf(deps: RegistrationDeps, realm: RealmRef, record: Record<string, unknown>, credentials: Credentials): Record<string, unknown> {
    return {
        ...metadataOf(record),
        // RFC 7591 §3.2.1: 0 — the secret does not expire
        ...(credentials.secret !== null ? { client_secret: credentials.secret, client_secret_expires_at: 0 } : {}),
        ...(credentials.registrationAccessToken !== undefined ? { registration_access_token: credentials.registrationAccessToken } : {}),
        registration_client_uri: `${deps.publicUrl.replace(/\/+$/, '')}${registrationEndpointPath(realm.name)}/${String(record.id)}`,
    };
}

const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The engine's deps inside the registration's transaction: the clients' service joins it. */
const within = (deps: RegistrationDeps, tx: Tx): RegistrationDeps => ({ ...deps, db: tx });

/** Reads the client with its secret (the registration context may: it may update its client). */
async function readClient(deps: RegistrationDeps, ctx: RequestContext, clientId: string): Promise<Record<string, unknown>> {
    return readEntity(deps, deps.clients, ctx, clientId, { fields: '+secret' });
}

/**
 * RFC 7591 §3: registers a client with an initial access token of the realm. In one transaction:
 * spend a use of the token (401 invalid_token when unknown, of another realm, spent or expired),
 * create the client through the clients' service (400 invalid_redirect_uri or
 * invalid_client_metadata, the use given back), record its registration access token. The
 * client is never first-party (consent is asked); a secret is generated for a secret method.
 */
export async function registerClient(deps: RegistrationDeps, call: RegistrationCall, metadata: Record<string, unknown>): Promise<Record<string, unknown>> {
    const realm = await openRealm(deps, call.realm);
    const digest = sha256Hex(bearerOf(call.authorization));
    const ctx = await registrationContext(deps.catalog, realm.id, call.request);
    const now = new Date((deps.clock ?? Date.now)());
    return writeTransaction(deps, { preload: ctx.authorizer }, async (tx) => {
        if (!await spendInitialAccessToken(tx, deps.handle.dialect, realm.id, digest, now)) {
            throw invalidToken('The initial access token is unknown, spent or expired.');
        }
        const { body, method } = registeredFields(metadata);
        const id = randomUUID();
        const secret = SECRET_METHODS.has(method) ? generateSecret() : null;
        const registrationAccessToken = randomToken();
        const record = await createEntity(within(deps, tx), deps.clients, ctx, {
            ...body, name: `registered-${id}`, realmId: realm.id, active: true, firstParty: false,
            // encrypted, so the management read can answer it (RFC 7592 §3) and client_secret_jwt can use it
            ...(secret !== null ? { secret, secretEncrypted: true } : { secretEncrypted: true }),
        }, id).catch((error: unknown) => {
            throw metadataError(error);
        });
        await insertClientRegistration(tx, deps.handle.dialect, { clientId: id, realmId: realm.id, digest: sha256Hex(registrationAccessToken) });
        return answerOf(deps, realm, record, { secret, registrationAccessToken });
    });
}

/** RFC 7592 §2: the registration access token must be this client's, in this realm; anything else is 401 invalid_token. */
async function assertRegistrationToken(deps: RegistrationDeps, db: RegistrationDeps['db'], realm: RealmRef, clientId: string, digest: string): Promise<void> {
    if (!/^[0-9a-f-]{36}$/i.test(clientId) || !await registrationMatches(db, realm.id, clientId.toLowerCase(), digest)) {
        throw invalidToken('The registration access token does not manage this client.');
    }
}

/** RFC 7592 §2.1: the client's current metadata and secret. */
export async function readRegistration(deps: RegistrationDeps, call: RegistrationCall, clientId: string): Promise<Record<string, unknown>> {
    const realm = await openRealm(deps, call.realm);
    const digest = sha256Hex(bearerOf(call.authorization));
    await assertRegistrationToken(deps, deps.db, realm, clientId, digest);
    const ctx = await registrationContext(deps.catalog, realm.id, call.request);
    const record = await readClient(deps, ctx, clientId.toLowerCase());
    return answerOf(deps, realm, record, { secret: textOrNull(record.secret) });
}

/**
 * RFC 7592 §2.2: replaces the client's metadata with the request's (omitted members are cleared),
 * through the clients' service. `client_id` must be the client's; a `client_secret`, when sent,
 * must be its current one. A method that needs a secret and has none gets one; `none` drops it.
 * The registration access token is rotated: the answer carries the new one, the old one stops.
 */
export async function updateRegistration(deps: RegistrationDeps, call: RegistrationCall, clientId: string, metadata: Record<string, unknown>): Promise<Record<string, unknown>> {
    const realm = await openRealm(deps, call.realm);
    const digest = sha256Hex(bearerOf(call.authorization));
    await assertRegistrationToken(deps, deps.db, realm, clientId, digest);
    const id = clientId.toLowerCase();
    const ctx = await registrationContext(deps.catalog, realm.id, call.request);
    if (metadata.client_id !== id) throw metadataError(invalidMember('client_id', 'must be the client_id of the registration client URI'));
    // read before the transaction: revealing an encrypted secret reads the realm key, which on
    // SQLite's single connection must not wait behind the open transaction
    const current = await readClient(deps, ctx, id);
    const stored = textOrNull(current.secret);
    if (metadata.client_secret !== undefined && (typeof metadata.client_secret !== 'string' || stored === null || !secretsEqual(metadata.client_secret, stored))) {
        throw metadataError(invalidMember('client_secret', 'must be the client\'s current secret'));
    }
    const { body, method } = registeredFields(metadata);
    const secret = SECRET_METHODS.has(method) ? (stored ?? generateSecret()) : null;
    const registrationAccessToken = randomToken();
    await writeTransaction(deps, { preload: ctx.authorizer }, async (tx) => {
        // the conditional swap is the token check of record: a token rotated meanwhile is refused
        if (!await replaceRegistrationToken(tx, deps.handle.dialect, id, digest, sha256Hex(registrationAccessToken))) {
            throw invalidToken('The registration access token does not manage this client.');
        }
        // an unchanged secret is not sent: re-encrypting it would rewrite the row for nothing
        const secretChange = secret === stored ? {} : { secret };
        await updateEntity(within(deps, tx), deps.clients, ctx, id, { ...body, ...secretChange }).catch((error: unknown) => {
            throw metadataError(error);
        });
    });
    return answerOf(deps, realm, await readClient(deps, ctx, id), { secret, registrationAccessToken });
}

function invalidMember(member: string, message: string): AppError {
    return new AppError(ErrorCode.BAD_REQUEST, `${member}: ${message}`, { issues: [{ path: [member], code: 'invalid_value', message }] });
}

/** RFC 7592 §2.3: deletes the client through the clients' service (its sessions and registration go with it). */
export async function deleteRegistration(deps: RegistrationDeps, call: RegistrationCall, clientId: string): Promise<void> {
    const realm = await openRealm(deps, call.realm);
    const digest = sha256Hex(bearerOf(call.authorization));
    const ctx = await registrationContext(deps.catalog, realm.id, call.request);
    await writeTransaction(deps, { preload: ctx.authorizer }, async (tx) => {
        await assertRegistrationToken(deps, tx, realm, clientId, digest);
        await deleteEntity(within(deps, tx), deps.clients, ctx, clientId.toLowerCase());
    });
}
