import { ErrorCode, isUuid, MASTER_REALM } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { decodeBasicRfc6749, isBasicScheme } from '../authn/basic-credentials.js';
import type { ProtocolLookups } from './lookups.js';
import { findRealmById, findRealmByName, findRealmOfClient, findRealmOfUser, type RealmRef } from '../storage/realms.js';
import { invalidRequest } from './errors.js';
import { step, type Step } from './pipeline.js';
import { assertionSubject } from './client-auth/assertion.js';
import type { ClientAuthBody } from './client-auth/authenticate.js';
import type { DpopPresentation, DpopVerifier } from '../authn/dpop-proof.js';
import { AppError } from '../errors/app-error.js';
import { profileAdmitsAlgorithm, profileOf } from './security-profile.js';

/**
 * The thumbprint of the key a request's DPoP proof holds (RFC 9449 §4.3), null without a `DPoP`
 * header; a proof that does not hold is invalid_dpop_proof (use_dpop_nonce with a fresh
 * `DPoP-Nonce` when a required nonce is missing, §8), as is an algorithm the realm's FAPI 2.0
 * profile does not accept (FAPI 2.0 Security Profile §5.4.1). The token and the pushed
 * authorization request endpoints share it.
 */
export async function proofKeyOf(dpop: DpopVerifier, presentation: DpopPresentation, realm: RealmRef): Promise<string | null> {
    if (presentation.proof === undefined) return null;
    const proof = await dpop.verify(presentation, { realmId: realm.id });
    if (!proof.ok) {
        const code = proof.code === 'use_dpop_nonce' ? ErrorCode.USE_DPOP_NONCE : ErrorCode.INVALID_DPOP_PROOF;
        throw new AppError(code, proof.message, proof.nonce !== null ? { headers: { 'DPoP-Nonce': proof.nonce } } : {});
    }
    if (!profileAdmitsAlgorithm(profileOf(realm), proof.algorithm)) {
        throw new AppError(ErrorCode.INVALID_DPOP_PROOF, 'The realm\'s FAPI 2.0 profile does not accept the DPoP proof\'s algorithm.');
    }
    return proof.jkt;
}

/**
 * The steps token, revocation and introspection share (oauth2/pipeline.ts), and the functions
 * behind them. Each works on the part of the request state it names.
 */

/** What the shared steps read and complete. */
export interface ProtocolRequestState {
    readonly query: unknown;
    readonly body: unknown;
    params: Record<string, string>;
}

/** Spec Errors: token parameters travel in the body only (RFC 6749 §2.3.1 alike for credentials). */
export const tokenNotInQuery: Step<ProtocolRequestState> = step('token not in the query string', (state) => {
    const query = state.query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object' && query.token !== undefined) {
        throw invalidRequest('The token must be sent in the request body, not in the query.');
    }
});

export const parseParameters: Step<ProtocolRequestState> = step('parse parameters', (state) => {
    state.params = readParams(state.body);
});

/** RFC 7009 §2.1, RFC 7662 §2.1: the token to revoke or introspect is required. */
export const tokenParameterRequired: Step<ProtocolRequestState> = step('token parameter required', (state) => {
    if (!state.params.token) throw invalidRequest('token is required.');
});

/** RFC 6749 §3.2: parameters are strings and "MUST NOT be included more than once". */
function readParams(body: unknown): Record<string, string> {
    if (body === undefined || body === null) return {};
    if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The request body must be a form or a JSON object.');
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
        if (Array.isArray(value)) throw invalidRequest(`The parameter ${name} is repeated.`);
        if (typeof value !== 'string') throw invalidRequest(`The parameter ${name} must be a string.`);
        // a NUL is never part of a parameter (and PostgreSQL refuses it in text)
        if (value.includes('\u0000')) throw invalidRequest(`The parameter ${name} is malformed.`);
        params[name] = value;
    }
    return params;
}

/** A realm lookup through the remembered realms when there are (oauth2/lookups.ts); found realms only are remembered. */
function remembered(lookups: ProtocolLookups | undefined, key: string, read: () => Promise<RealmRef | undefined>): Promise<RealmRef | undefined> {
    return lookups ? lookups.realms.through(key, read) : read();
}

const realmById = (db: Kysely<Database>, id: string, lookups?: ProtocolLookups) =>
    remembered(lookups, `id:${id.toLowerCase()}`, () => findRealmById(db, id));
const realmByName = (db: Kysely<Database>, name: string, lookups?: ProtocolLookups) =>
    remembered(lookups, `name:${name}`, () => findRealmByName(db, name));

/** API.md §4: the realm by `realm_id` or `realm_name`, else the grant's hint, else master. */
async function resolveRealm(db: Kysely<Database>, params: Record<string, string>, hint: string | undefined, lookups?: ProtocolLookups): Promise<RealmRef> {
    const { realm_id: id, realm_name: name } = params;
    if (id !== undefined && !isUuid(id)) throw invalidRequest('realm_id must be a UUID.');
    let realm: RealmRef | undefined;
    if (id !== undefined) {
        realm = await realmById(db, id, lookups);
        // both given: they must name the same realm
        if (name !== undefined && realm?.name !== name) realm = undefined;
    } else if (name !== undefined) {
        realm = await realmByName(db, name, lookups);
    } else if (hint !== undefined && isUuid(hint)) {
        realm = await realmById(db, hint, lookups);
    } else {
        realm = await realmByName(db, MASTER_REALM, lookups);
    }
    if (!realm) throw invalidRequest('The realm does not exist.');
    return realm;
}

/**
 * The client id a request presents, by Basic, body or a client assertion's `sub` (RFC 7523 §3
 * item 2; `client_id` is optional beside it, RFC 7521 §4.2), for locating its realm; never verified here.
 */
export function presentedClientId(params: Record<string, string>, authorization: string | undefined): string | undefined {
    if (isBasicScheme(authorization)) return decodeBasicRfc6749(authorization)?.id;
    return params.client_id ?? assertionSubject(params);
}

/**
 * The realm a protocol request works in: `realm_id`/`realm_name` when given; else the grant's
 * hint (a refresh token's realm); else the realm of the client — or, with `users`, the user —
 * whose id the caller presents, so a standard relying party that only knows the discovered
 * endpoints needs no realm parameter; else master (API.md §4's default). Never derived from a
 * presented token, so a token of another realm cannot change the answer.
 */
export async function realmOfRequest(
    db: Kysely<Database>,
    params: Record<string, string>,
    options: { hint?: string | undefined; credentialId?: string | undefined; users?: boolean },
    lookups?: ProtocolLookups,
): Promise<RealmRef> {
    if (params.realm_id !== undefined || params.realm_name !== undefined || options.hint !== undefined) {
        return resolveRealm(db, params, options.hint, lookups);
    }
    const id = options.credentialId;
    if (id !== undefined && isUuid(id)) {
        const owner = id.toLowerCase();
        // a client's realm is fixed for its life; a deleted client's entry goes with the bus (wire.ts)
        const realm = await remembered(lookups, `client:${owner}`, () => findRealmOfClient(db, owner)) ??
            (options.users ? await findRealmOfUser(db, owner) : undefined);
        if (realm) return realm;
    }
    return resolveRealm(db, {}, undefined, lookups);
}

/**
 * The body's client credentials of an endpoint whose requests list `client_id` whatever the
 * authentication (RFC 8628 §3.1, RFC 9126 §2.1): a client authenticating with Basic may repeat its
 * own id there (oauth4webapi does); the same id without a secret is no second authentication method
 * (RFC 6749 §2.3.1), so it is set aside.
 */
export function bodyCredentialsBesideBasic(params: Record<string, string>, authorization: string | undefined): ClientAuthBody {
    const body = bodyClientCredentials(params);
    if (isBasicScheme(authorization) && body.client_secret === undefined && body.client_id !== undefined &&
        body.client_id === presentedClientId({}, authorization)) delete body.client_id;
    return body;
}

const BODY_CREDENTIALS = ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type'] as const;

/** The client credentials of the body (RFC 6749 §2.3.1, RFC 7521 §4.2), present members only. */
export function bodyClientCredentials(params: Record<string, string>): ClientAuthBody {
    const body: ClientAuthBody = {};
    for (const name of BODY_CREDENTIALS) if (params[name] !== undefined) body[name] = params[name];
    return body;
}
