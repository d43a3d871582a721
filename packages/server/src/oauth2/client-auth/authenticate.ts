import type { OutboundPolicy } from '../../outbound/address-policy.js';
import { DEVICE_CODE_GRANT_TYPE, type TokenEndpointAuthMethod } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { findClientInRealm, type ClientCredentials } from '../../storage/clients.js';
import { decodeBasicRfc6749, isBasicScheme } from '../../authn/basic-credentials.js';
import type { ClientSecretVerifier } from '../../secrets/client-secret-verifier.js';
import { failedAuthentication } from '../../limits/failed-authentication.js';
import { DUMMY_BCRYPT_HASH, type PasswordHasher } from '../../secrets/passwords.js';
import { invalidClient, invalidRequest } from '../errors.js';
import { provesRemembered, type ProtocolLookups } from '../lookups.js';
import { findRealmById } from '../../storage/realms.js';
import { issuerOf } from '../../tokens/issuer.js';
import {
    AssertionRefusedError, CLIENT_SECRET_JWT_ALGORITHMS, presentedAssertion, PRIVATE_KEY_JWT_ALGORITHMS, verifyClientAssertion,
    type ClientAssertionDeps, type PresentedAssertion,
} from './assertion.js';

/** RFC 6749 §2.3.1 Basic that does not decode: the client failed to authenticate. */
function malformedBasic(): never {
    throw invalidClient('The Basic credentials are malformed.');
}

export interface ClientAuthDeps {
    db: Kysely<Database>;
    clientSecrets: ClientSecretVerifier;
    passwords: PasswordHasher;
    /** USER_AUTH_BASIC: whether the Basic fallback to a user's credentials (introspection, revocation) is open */
    config?: { userAuthBasic: boolean };
    /** Basic user credentials may be verified by an LDAP directory: its bind password is sealed */
    secrets: SecretBox;
    /** the hosts such a directory may be reached at (OUTBOUND_ALLOWED_HOSTS) */
    outbound: OutboundPolicy;
    handle: { dialect: DialectName };
    /** realms and clients that authenticated, remembered (oauth2/lookups.ts); absent: every lookup reads */
    lookups?: ProtocolLookups;
    /** client assertions (RFC 7523 §2.2): the clients' keys, the single-use store, the audiences of this endpoint */
    assertions: ClientAssertionDeps & { publicUrl: string };
}

/** A client the token request named: `authenticated` when it proved itself (a confidential client). */
export interface RequestClient {
    row: ClientCredentials;
    authenticated: boolean;
    /** how it authenticated (`none`: identified by client_id alone), and a client assertion's JWS algorithm */
    method: TokenEndpointAuthMethod;
    algorithm?: string;
}

/** The body members of client authentication (RFC 6749 §2.3.1, RFC 7521 §4.2), present members only. */
export interface ClientAuthBody {
    client_id?: string;
    client_secret?: string;
    client_assertion?: string;
    client_assertion_type?: string;
}

/**
 * Whether a client may authenticate the way a request does: with its registered
 * `tokenEndpointAuthMethod` only (OIDC Registration §2); without one, as before there were methods:
 * its secret by Basic or by the body, or — a client without a secret — its bare client_id.
 */
function methodAllows(row: ClientCredentials, presented: TokenEndpointAuthMethod): boolean {
    if (row.tokenEndpointAuthMethod === null) return presented === 'client_secret_basic' || presented === 'client_secret_post' || presented === 'none';
    return row.tokenEndpointAuthMethod === presented;
}

/** spec Limits: a refused credential counts toward the address's failures and is logged for the client tried. */
const refusedFor = (realmId: string, row: ClientCredentials | undefined, description?: string) =>
    failedAuthentication(invalidClient(description), { realmId, refType: 'client', refId: row?.id ?? null });

/**
 * Client authentication at the token endpoint (RFC 6749 §2.3) and the other endpoints that
 * authenticate clients: HTTP Basic, the body members `client_id`/`client_secret`, or a client
 * assertion (RFC 7523 §2.2) — never two of them (§2.3.1: "MUST NOT use more than one
 * authentication method in each request"). A `client_id` alone identifies a public client (§2.1) —
 * a client with a secret, or registered with another method, must authenticate. The client is
 * looked up in the request's realm. Null: no client.
 */
export async function authenticateClient(
    deps: ClientAuthDeps,
    realmId: string,
    authorization: string | undefined,
    body: ClientAuthBody,
): Promise<RequestClient | null> {
    const basic = isBasicScheme(authorization);
    if (authorization !== undefined && !basic) throw invalidRequest('The token endpoint accepts Basic client authentication only.');
    let assertion: PresentedAssertion | null;
    try {
        assertion = presentedAssertion(body);
    } catch (error) {
        if (error instanceof AssertionRefusedError) throw refusedFor(realmId, undefined, error.message);
        throw error;
    }
    if (assertion) {
        if (basic || body.client_secret !== undefined) {
            throw invalidRequest('A client assertion and a client secret together are not allowed (RFC 6749 §2.3.1).');
        }
        return authenticateByAssertion(deps, realmId, body.client_id, assertion);
    }
    if (basic && (body.client_id !== undefined || body.client_secret !== undefined)) {
        throw invalidRequest('Client authentication by Basic and by the body together is not allowed (RFC 6749 §2.3.1).');
    }
    const credentials = basic ? decodeBasicRfc6749(authorization) ?? malformedBasic() : body.client_id !== undefined ?
        { id: body.client_id, secret: body.client_secret } : null;
    if (!credentials) {
        if (body.client_secret !== undefined) throw invalidRequest('client_secret needs client_id.');
        return null;
    }
    const presented: TokenEndpointAuthMethod = basic ? 'client_secret_basic' : credentials.secret !== undefined ? 'client_secret_post' : 'none';
    const lookups = deps.lookups;
    const cacheKey = `${realmId}/${credentials.id}`;
    // a client that authenticated before answers from memory when it presents the
    // same proof (its secret's keyed digest, or again no secret for a public client) the way its
    // method allows; anything else — another secret, another method — takes the full path below,
    // failures counted as before
    const known = lookups?.clients.get(cacheKey);
    if (known && methodAllows(known.row, presented)) {
        if (credentials.secret === undefined ? known.digest === null : provesRemembered(lookups!, known, credentials.secret)) {
            return { row: known.row, authenticated: credentials.secret !== undefined, method: presented };
        }
    }
    const generation = lookups?.clients.mark();
    const row = await findClientInRealm(deps.db, realmId, credentials.id);
    if (credentials.secret === undefined) {
        // a public client: identified, not authenticated
        if (!row?.active) throw invalidClient();
        // a client registered with a method (private_key_jwt has no secret, yet is confidential)
        // that sends its bare client_id failed to authenticate
        if (!methodAllows(row, 'none')) throw refusedFor(realmId, row, 'The client must authenticate with its registered method.');
        if (row.secret) throw invalidClient('The client must authenticate with its secret.');
        lookups?.clients.set(cacheKey, { row, digest: null }, generation);
        return { row, authenticated: false, method: 'none' };
    }
    // spec Limits: a wrong client secret counts toward the address's failures; the right secret
    // of an inactive client does not. A secret from a client registered with another method is
    // refused like a wrong one, at the same cost
    if (!row?.secret || !methodAllows(row, presented)) {
        await deps.passwords.verify(credentials.secret, DUMMY_BCRYPT_HASH);
        throw refusedFor(realmId, row);
    }
    if (!(await deps.clientSecrets.verify(row, credentials.secret))) {
        // no enumeration by timing: a wrong secret costs one bcrypt verification whether
        // the client is unknown (above), stored hashed (spent in verify) or stored plain/encrypted
        if (!row.secretHashed) await deps.passwords.verify(credentials.secret, DUMMY_BCRYPT_HASH);
        throw refusedFor(realmId, row);
    }
    if (!row.active) throw invalidClient();
    // remembered without its secret: '' marks it confidential and verifies nothing
    lookups?.clients.set(cacheKey, { row: { ...row, secret: '' }, digest: lookups.digest(credentials.secret) }, generation);
    return { row, authenticated: true, method: presented };
}

/** The realm's issuer, an assertion's first audience (RFC 7523 §3 item 3), through the remembered realms. */
async function issuerOfRealm(deps: ClientAuthDeps, realmId: string): Promise<string> {
    const read = () => findRealmById(deps.db, realmId);
    const realm = deps.lookups ? await deps.lookups.realms.through(`id:${realmId.toLowerCase()}`, read) : await read();
    if (!realm) throw invalidClient();
    return issuerOf(deps.assertions.publicUrl, realm.name);
}

/** client_secret_jwt's HMAC key (OIDC Core §9): the secret itself, so never one stored as a hash. */
async function hmacKeyOf(deps: ClientAuthDeps, realmId: string, row: ClientCredentials): Promise<Uint8Array> {
    if (!row.secret || row.secretHashed) throw refusedFor(realmId, row, 'The client has no secret the server can sign with.');
    if (!deps.secrets.isEnvelope(row.secret)) return new TextEncoder().encode(row.secret);
    try {
        return new TextEncoder().encode(await deps.secrets.decrypt(deps.db, row.secret));
    } catch {
        // spec States: the realm key disabled, the secret cannot be recovered
        throw refusedFor(realmId, row);
    }
}

/**
 * RFC 7523 §2.2 and §3: the client named by the assertion's `sub` (and by `client_id`, when sent,
 * the same client: RFC 7521 §4.2), registered with the method the assertion's `alg` means,
 * authenticated by a verified assertion (client-auth/assertion.ts). A private_key_jwt client is
 * remembered by its row only (lookups.ts): its next assertion is verified in full all the same.
 */
async function authenticateByAssertion(deps: ClientAuthDeps, realmId: string, clientId: string | undefined, assertion: PresentedAssertion): Promise<RequestClient> {
    if (clientId !== undefined && clientId !== assertion.subject) {
        throw refusedFor(realmId, undefined, 'client_id is not the client the assertion names (RFC 7521 §4.2).');
    }
    const lookups = deps.lookups;
    const cacheKey = `${realmId}/${assertion.subject}`;
    const known = lookups?.clients.get(cacheKey);
    const generation = lookups?.clients.mark();
    const row = known?.row.tokenEndpointAuthMethod === 'private_key_jwt' && assertion.method === 'private_key_jwt' ?
        known.row : await findClientInRealm(deps.db, realmId, assertion.subject);
    if (!row || row.tokenEndpointAuthMethod !== assertion.method) {
        throw refusedFor(realmId, row, `The client cannot authenticate with a ${assertion.method} assertion.`);
    }
    const privateKey = assertion.method === 'private_key_jwt';
    try {
        await verifyClientAssertion(deps.assertions, assertion, {
            realmId, clientId: row.id, issuer: await issuerOfRealm(deps, realmId), clientIdentifier: assertion.subject,
            key: privateKey ? (selector) => deps.assertions.keys.keyObjects(row, selector) : await hmacKeyOf(deps, realmId, row),
            algorithms: privateKey ? PRIVATE_KEY_JWT_ALGORITHMS : CLIENT_SECRET_JWT_ALGORITHMS,
        });
    } catch (error) {
        if (error instanceof AssertionRefusedError) throw refusedFor(realmId, row, error.message);
        throw error;
    }
    if (!row.active) throw invalidClient();
    // only a key-holding client's row is remembered: a client_secret_jwt one needs its secret, which memory never holds
    if (privateKey && !known) lookups?.clients.set(cacheKey, { row: { ...row, secret: row.secret === null ? null : '' }, digest: null }, generation);
    return { row, authenticated: true, method: assertion.method, algorithm: assertion.algorithm };
}

/** The grants a client may use: grant_types JSON, null = every grant but the device code (schema). */
export function clientAllowsGrant(row: ClientCredentials, grantType: string): boolean {
    if (row.grantTypes === null) return grantType !== DEVICE_CODE_GRANT_TYPE;
    try {
        const list = JSON.parse(row.grantTypes) as unknown;
        return Array.isArray(list) && list.includes(grantType);
    } catch {
        return false;
    }
}
