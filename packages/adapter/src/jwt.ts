import { createPublicKey, verify as verifySignature, type JsonWebKey, type KeyObject } from 'node:crypto';
import { ErrorCode, isUuid, tokenTypeFitsKind } from '@realmgate/core';
import { RealmgateError } from '@realmgate/client';

/* Local verification of a Realmgate access token (spec Authentication 4, RFC 7515, RFC 7519). */

/** The claims of an access token (API.md §4). */
export interface AccessTokenClaims {
    iss: string;
    sub: string;
    sub_kind: 'user' | 'client';
    kind: string;
    realm_id: string;
    realm_name: string;
    client_id?: string;
    scope?: string;
    session_id?: string;
    jti?: string;
    iat?: number;
    exp: number;
    /**
     * RFC 9068 §2.2: the resource server the token is for (RFC 8707 §2), or its realm's default
     * audience; absent only on a token signed before RFC 9068
     */
    aud?: string | string[];
    /** RFC 8693 §4.1: the actor of a delegated token */
    act?: Record<string, unknown>;
    /** RFC 9449 §6.1: the thumbprint of the DPoP key the token is bound to */
    cnf?: { jkt?: unknown };
    [claim: string]: unknown;
}

export const invalidToken = (message: string, code: ErrorCode = ErrorCode.INVALID_TOKEN) => new RealmgateError({ statusCode: 401, code, message });

/** The node:crypto parameters of the algorithms a realm key may have (ES256 by default, RS256). */
const ALGORITHMS: Record<string, { hash: string; dsaEncoding?: 'ieee-p1363' }> = {
    ES256: { hash: 'sha256', dsaEncoding: 'ieee-p1363' },
    RS256: { hash: 'sha256' },
};

function decodeSegment(segment: string | undefined): Record<string, unknown> {
    if (!segment) throw invalidToken('malformed token');
    try {
        const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
        return value as Record<string, unknown>;
    } catch {
        throw invalidToken('malformed token');
    }
}

/** The parts of a compact JWS, its header and claims parsed but nothing trusted yet. */
function parseJwt(token: string): { header: Record<string, unknown>; claims: Record<string, unknown>; signingInput: string; signature: Buffer } {
    const parts = token.split('.');
    if (parts.length !== 3) throw invalidToken('malformed token');
    return { header: decodeSegment(parts[0]), claims: decodeSegment(parts[1]), signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') };
}

/** A fetched public key (RFC 7517 JWK) made usable by node:crypto. */
export function importJwk(jwk: Record<string, unknown>): KeyObject {
    return createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
}

/**
 * The token's claims once the kid, realm_id, algorithm, signature, kind and expiry (give or take
 * `clockToleranceSeconds`) hold. The key is
 * the token's realm's own (`keyOf(realmId, kid)` fetches /realms/<realm>/jwks/<kid>): a token
 * without realm_id or with a kid that is not a UUID is refused before any fetch.
 */
export async function verifyAccessToken(
    token: string, keyOf: (realmId: string, kid: string) => Promise<{ key: KeyObject; alg: string }>, nowSeconds: number, clockToleranceSeconds = 0,
): Promise<AccessTokenClaims> {
    const { header, claims, signingInput, signature } = parseJwt(token);
    if (typeof header.kid !== 'string' || !isUuid(header.kid)) throw invalidToken('the token key id is not a UUID');
    if (typeof claims.realm_id !== 'string' || !isUuid(claims.realm_id)) throw invalidToken('the token names no realm');
    const algorithm = typeof header.alg === 'string' ? ALGORITHMS[header.alg] : undefined;
    if (!algorithm) throw invalidToken('unsupported signature algorithm');
    const { key, alg } = await keyOf(claims.realm_id, header.kid);
    // RFC 8725 §3.1: the key decides the algorithm, never the token alone
    if (alg !== header.alg) throw invalidToken('the token algorithm does not match its key');
    const valid = verifySignature(algorithm.hash, Buffer.from(signingInput), { key, ...(algorithm.dsaEncoding ? { dsaEncoding: algorithm.dsaEncoding } : {}) }, signature);
    if (!valid) throw invalidToken('invalid token signature');
    // RFC 9068 §4: typed `at+jwt` (or an untyped access token signed before RFC 9068), and of kind access_token
    if (claims.kind !== 'access_token' || !tokenTypeFitsKind(header.typ, claims.kind)) throw invalidToken('not an access token');
    // RFC 7519 §4.1.4–4.1.5: "some small leeway … to account for clock skew"
    if (typeof claims.exp !== 'number' || claims.exp + clockToleranceSeconds <= nowSeconds) throw invalidToken('the token has expired', ErrorCode.EXPIRED_TOKEN);
    if (typeof claims.nbf === 'number' && claims.nbf - clockToleranceSeconds > nowSeconds) throw invalidToken('the token is not valid yet');
    if (typeof claims.sub !== 'string' || (claims.sub_kind !== 'user' && claims.sub_kind !== 'client') || typeof claims.realm_name !== 'string') {
        throw invalidToken('the token names no subject');
    }
    return claims as AccessTokenClaims;
}
