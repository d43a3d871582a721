import type { OutboundPolicy } from '../../outbound/address-policy.js';
import { DEVICE_CODE_GRANT_TYPE } from '@realmgate/core';
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
    /** Basic user credentials may be verified by an LDAP directory (issue 16): its bind password is sealed */
    secrets: SecretBox;
    /** the hosts such a directory may be reached at (OUTBOUND_ALLOWED_HOSTS) */
    outbound: OutboundPolicy;
    handle: { dialect: DialectName };
    /** realms and clients that authenticated, remembered (oauth2/lookups.ts); absent: every lookup reads */
    lookups?: ProtocolLookups;
}

/** A client the token request named: `authenticated` when it proved its secret (a confidential client). */
export interface RequestClient {
    row: ClientCredentials;
    authenticated: boolean;
}



/**
 * Client authentication at the token endpoint (RFC 6749 §2.3): HTTP Basic or the body members
 * `client_id`/`client_secret`, never both (§2.3.1: "MUST NOT use more than one authentication
 * method in each request"). A `client_id` alone identifies a public client (§2.1) — a client with a
 * secret must present it. The client is looked up in the token request's realm. Null: no client.
 */
export async function authenticateClient(
    deps: ClientAuthDeps,
    realmId: string,
    authorization: string | undefined,
    body: { client_id?: string; client_secret?: string },
): Promise<RequestClient | null> {
    const basic = isBasicScheme(authorization);
    if (authorization !== undefined && !basic) throw invalidRequest('The token endpoint accepts Basic client authentication only.');
    if (basic && (body.client_id !== undefined || body.client_secret !== undefined)) {
        throw invalidRequest('Client authentication by Basic and by the body together is not allowed (RFC 6749 §2.3.1).');
    }
    const credentials = basic ? decodeBasicRfc6749(authorization) ?? malformedBasic() : body.client_id !== undefined ?
        { id: body.client_id, secret: body.client_secret } : null;
    if (!credentials) {
        if (body.client_secret !== undefined) throw invalidRequest('client_secret needs client_id.');
        return null;
    }
    const lookups = deps.lookups;
    const cacheKey = `${realmId}/${credentials.id}`;
    // issue 19 item 2: a client that authenticated before answers from memory when it presents the
    // same proof (its secret's keyed digest, or again no secret for a public client); anything
    // else — another secret included — takes the full path below, failures counted as before
    const known = lookups?.clients.get(cacheKey);
    if (known) {
        if (credentials.secret === undefined ? known.digest === null : provesRemembered(lookups!, known, credentials.secret)) {
            return { row: known.row, authenticated: credentials.secret !== undefined };
        }
    }
    const generation = lookups?.clients.mark();
    const row = await findClientInRealm(deps.db, realmId, credentials.id);
    if (credentials.secret === undefined) {
        // a public client: identified, not authenticated
        if (!row?.active) throw invalidClient();
        if (row.secret) throw invalidClient('The client must authenticate with its secret.');
        lookups?.clients.set(cacheKey, { row, digest: null }, generation);
        return { row, authenticated: false };
    }
    // spec Limits: a wrong client secret counts toward the address's failures; the right secret
    // of an inactive client does not
    if (!row?.secret) {
        await deps.passwords.verify(credentials.secret, DUMMY_BCRYPT_HASH);
        throw failedAuthentication(invalidClient(), { realmId, refType: 'client', refId: row?.id ?? null });
    }
    if (!(await deps.clientSecrets.verify(row, credentials.secret))) {
        // no enumeration by timing (issue 12): a wrong secret costs one bcrypt verification whether
        // the client is unknown (above), stored hashed (spent in verify) or stored plain/encrypted
        if (!row.secretHashed) await deps.passwords.verify(credentials.secret, DUMMY_BCRYPT_HASH);
        throw failedAuthentication(invalidClient(), { realmId, refType: 'client', refId: row.id });
    }
    if (!row.active) throw invalidClient();
    // remembered without its secret: '' marks it confidential and verifies nothing
    lookups?.clients.set(cacheKey, { row: { ...row, secret: '' }, digest: lookups.digest(credentials.secret) }, generation);
    return { row, authenticated: true };
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
