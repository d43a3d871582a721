import { jwtVerify } from 'jose';
import type { ClientKeys } from '../client-keys.js';
import { PRIVATE_KEY_JWT_ALGORITHMS } from '../client-auth/assertion.js';
import { profileAdmitsAlgorithm, profileOf, type RealmProtocolSettings } from '../security-profile.js';
import { AUTHORIZATION_PARAMETERS } from './request.js';

/**
 * RFC 9101 §6.2 and RFC 8725 §3.1: a request object is signed with one of the client's own
 * asymmetric keys — never `alg: none` (it proves nothing), never an HMAC (RFC 9101 §10.2 lets one
 * use the client secret, but a secret the server can read is no proof of origin for parameters it
 * must trust over the query's). Discovery's request_object_signing_alg_values_supported.
 */
export const REQUEST_OBJECT_ALGORITHMS = PRIVATE_KEY_JWT_ALGORITHMS;

/** A compact JWS far past any request object's size is refused before it is parsed. */
const MAX_REQUEST_OBJECT_LENGTH = 16_384;

export interface RequestObjectDeps {
    clientKeys: ClientKeys;
    /** epoch milliseconds: `exp` and `nbf` are judged by it */
    clock: () => number;
}

export type RequestObjectResult = { ok: true; params: Record<string, string> } | { ok: false; message: string };

/**
 * Verifies a request object by value (RFC 9101 §6.3) for the client the outer `client_id` named:
 * the signature by one of its keys (inline jwks or its jwksUri, oauth2/client-keys.ts), `iss` the
 * client_id and `aud` the realm's issuer (§4, §10.2 — an object for another server or realm is not
 * replayed here), `exp` when present, and the inner client_id equal to the outer one (§5). Answers
 * the object's authorization parameters: the only ones that count (§5).
 */
export async function verifyRequestObject(
    deps: RequestObjectDeps, client: { id: string; jwks: string | null; jwksUri: string | null; realm: RealmProtocolSettings }, issuer: string, jwt: string,
): Promise<RequestObjectResult> {
    // FAPI 2.0 Security Profile §5.4.1: a realm's profile narrows the algorithms
    const algorithms = REQUEST_OBJECT_ALGORITHMS.filter((algorithm) => profileAdmitsAlgorithm(profileOf(client.realm), algorithm));
    if (jwt.length > MAX_REQUEST_OBJECT_LENGTH) return { ok: false, message: 'The request object is too large.' };
    let payload: Record<string, unknown>;
    try {
        ({ payload } = await jwtVerify(jwt, deps.clientKeys.verificationKeys(client), {
            algorithms, issuer: client.id, audience: issuer, currentDate: new Date(deps.clock()),
        }));
    } catch {
        return { ok: false, message: 'The request object is not signed by the client with an allowed algorithm, or its iss, aud or exp is wrong (RFC 9101 §6.3).' };
    }
    if (payload.client_id !== client.id) return { ok: false, message: 'The request object\'s client_id must be the client_id of the request (RFC 9101 §5).' };
    // RFC 9101 §4: a request object never names another one
    if (payload.request !== undefined || payload.request_uri !== undefined) return { ok: false, message: 'A request object cannot carry request or request_uri (RFC 9101 §4).' };
    const params: Record<string, string> = {};
    for (const name of AUTHORIZATION_PARAMETERS) {
        const value = payload[name];
        if (value === undefined) continue;
        // JSON members: max_age may be a number (OIDC Core §6.1); every other one is a string
        if (typeof value === 'string') params[name] = value;
        else if (name === 'max_age' && typeof value === 'number' && Number.isInteger(value)) params[name] = String(value);
        else return { ok: false, message: `The request object's ${name} must be a string.` };
    }
    return { ok: true, params };
}
