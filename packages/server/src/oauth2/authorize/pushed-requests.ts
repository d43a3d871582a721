import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import { randomToken, sha256Hex } from '../../secrets/digests.js';
import { insertPushedRequest, takePushedRequest } from '../../storage/pushed-requests.js';
import type { RequestOrigin } from './request.js';

/** RFC 9126 §2.2: the URN namespace of a request_uri the authorization server hands out. */
export const PUSHED_REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** RFC 9126 §2.2 expires_in: short-lived (the RFC's example lifetime, and FAPI 2.0's bound of 600 s). */
const PUSHED_REQUEST_LIFETIME_SECONDS = 60;

export interface PushedRequestDeps {
    db: Kysely<Database>;
    dialect: DialectName;
    clock: () => number;
}

/** What a pushed request keeps: the validated parameters and whether a signed request object carried them. */
export interface PushedParameters {
    params: Record<string, string>;
    signed: boolean;
}

/**
 * Stores validated parameters under a fresh reference (RFC 9126 §2.2): 256 random bits, so it
 * cannot be guessed (§7.1); only its digest is stored. Answers the request_uri and expires_in.
 */
export async function pushRequest(
    deps: PushedRequestDeps, owner: { realmId: string; clientId: string }, pushed: PushedParameters,
): Promise<{ request_uri: string; expires_in: number }> {
    const requestUri = `${PUSHED_REQUEST_URI_PREFIX}${randomToken()}`;
    await insertPushedRequest(deps.db, deps.dialect, sha256Hex(requestUri), {
        ...owner, parameters: JSON.stringify(pushed), expiresAt: new Date(deps.clock() + PUSHED_REQUEST_LIFETIME_SECONDS * 1000),
    });
    return { request_uri: requestUri, expires_in: PUSHED_REQUEST_LIFETIME_SECONDS };
}

/**
 * Redeems a request_uri for the client that pushed it, once (RFC 9126 §4): null when it is
 * unknown, already redeemed, expired, or another client's (§7.3) — a reference presented with
 * another client_id is left untouched, so a client that learnt it cannot spend it for its owner.
 */
export async function redeemPushedRequest(deps: PushedRequestDeps, requestUri: string, clientId: string): Promise<{ params: Record<string, string>; origin: RequestOrigin } | null> {
    const row = await takePushedRequest(deps.db, sha256Hex(requestUri), clientId);
    if (!row || row.expiresAt.getTime() <= deps.clock()) return null;
    const pushed = JSON.parse(row.parameters) as PushedParameters;
    return { params: pushed.params, origin: { pushed: true, signed: pushed.signed } };
}
