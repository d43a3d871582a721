/*
 * The rules of a DPoP proof (RFC 9449 §4.3) that need no cryptography: the server's token endpoint
 * and resource routes and the resource-server adapter apply the same ones. The signature, the key
 * thumbprint's hash, the single use of `jti` and a server nonce are each verifier's own.
 */

/** RFC 9449 §4.2: the `typ` of a proof's header. */
export const DPOP_PROOF_TYPE = 'dpop+jwt';

/**
 * The proof algorithms accepted (RFC 9449 §4.3 item 5: asymmetric only — never `none`, never a MAC
 * such as HS256, since a shared key proves no possession); advertised as
 * `dpop_signing_alg_values_supported` (§5.1). `Ed25519` is RFC 9864's fully specified name of
 * EdDSA over Ed25519, which current clients (openid-client v6) sign with.
 */
export const DPOP_SIGNING_ALGORITHMS = ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519'] as const;

export type DpopSigningAlgorithm = (typeof DPOP_SIGNING_ALGORITHMS)[number];

/**
 * How far a proof's `iat` may lie from the verifier's clock, either side (RFC 9449 §4.3 item 11
 * "within an acceptable window"; §11.1: the window bounds how long a `jti` must be remembered).
 */
export const DPOP_PROOF_WINDOW_SECONDS = 60;

/** JWK members that belong to a private or symmetric key (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** The key type (and curve) each algorithm signs with (RFC 7518 §3.3–3.5, RFC 8037 §3.1). */
function keyFits(alg: DpopSigningAlgorithm, jwk: Record<string, unknown>): boolean {
    switch (alg) {
        case 'ES256': return jwk.kty === 'EC' && jwk.crv === 'P-256' && isText(jwk.x) && isText(jwk.y);
        case 'PS256':
        case 'RS256': return jwk.kty === 'RSA' && isText(jwk.n) && isText(jwk.e);
        case 'EdDSA': return jwk.kty === 'OKP' && (jwk.crv === 'Ed25519' || jwk.crv === 'Ed448') && isText(jwk.x);
        case 'Ed25519': return jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && isText(jwk.x);
    }
}

/**
 * The JSON whose SHA-256 is a key's RFC 7638 thumbprint: the required members of its key type in
 * lexicographic order, no whitespace (§3.2, §3.3). Null for a key type without a thumbprint here.
 */
export function jwkThumbprintInput(jwk: Record<string, unknown>): string | null {
    const members = jwk.kty === 'EC' ? ['crv', 'kty', 'x', 'y'] : jwk.kty === 'RSA' ? ['e', 'kty', 'n'] : jwk.kty === 'OKP' ? ['crv', 'kty', 'x'] : null;
    if (members === null || !members.every((name) => isText(jwk[name]))) return null;
    return `{${members.map((name) => `${JSON.stringify(name)}:${JSON.stringify(jwk[name])}`).join(',')}}`;
}

/** the parts of a WHATWG URL read here */
interface ParsedUrl {
    readonly protocol: string;
    readonly host: string;
    readonly pathname: string;
}

/**
 * The WHATWG URL parser every supported runtime (browsers, Node.js, Deno, workers) has as a global:
 * this package is built without DOM or Node.js typings, so the constructor is named by its shape.
 */
const WhatwgUrl = (globalThis as unknown as { URL: new (value: string) => ParsedUrl }).URL;

/**
 * A URI as a proof's `htu` is compared (RFC 9449 §4.3 item 9): without query and fragment, after
 * the syntax- and scheme-based normalisation of RFC 3986 §6.2.2 and §6.2.3 (case of scheme and
 * host, default port, empty path, dot segments). Null for anything but an absolute http(s) URI.
 */
export function dpopTargetUri(value: string): string | null {
    let url: ParsedUrl;
    try {
        url = new WhatwgUrl(value);
    } catch {
        return null;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return `${url.protocol}//${url.host}${url.pathname}`;
}

function sameTarget(htu: string, uris: readonly string[]): boolean {
    const target = dpopTargetUri(htu);
    return target !== null && uris.some((uri) => dpopTargetUri(uri) === target);
}

/** What the request a proof travels with lets a verifier expect of it. */
export interface DpopProofExpectation {
    /** the request's method (`htm`, RFC 9449 §4.3 item 8) */
    method: string;
    /** the URIs the request may have been sent to (`htu`, item 9): the server's public URL, its aliases */
    uris: readonly string[];
    /** the verifier's clock, in seconds */
    nowSeconds: number;
    /** base64url SHA-256 of the access token the request presents (`ath`, §4.3 item 12); absent at the token endpoint */
    accessTokenHash?: string;
}

/** A proof whose header and claims hold: what the verifier still has to check. */
export interface DpopProofClaims {
    alg: DpopSigningAlgorithm;
    /** the public key the proof is signed with (its header's `jwk`) */
    jwk: Record<string, unknown>;
    jti: string;
    iat: number;
    /** the server-provided nonce the proof carries (RFC 9449 §8), if any */
    nonce: string | null;
}

export type DpopProofCheck = ({ ok: true } & DpopProofClaims) | { ok: false; reason: string };

/** A `jti` longer than this is refused: it is stored (hashed) for the window, and 96 bits of randomness need 16 characters. */
const MAX_JTI_LENGTH = 256;

/**
 * RFC 9449 §4.3 items 4, 5, 7–12 on a proof's decoded header and claims: `typ`, an allowed `alg`,
 * a public `jwk` that fits it, `jti`, `htm`, `htu`, `iat` within the window and, when an access
 * token is presented, `ath`. The signature (item 6) is checked by the caller with `jwk`.
 */
export function checkDpopProof(header: Record<string, unknown>, claims: Record<string, unknown>, expected: DpopProofExpectation): DpopProofCheck {
    const fail = (reason: string): DpopProofCheck => ({ ok: false, reason });
    if (header.typ !== DPOP_PROOF_TYPE) return fail(`The proof's typ must be ${DPOP_PROOF_TYPE}.`);
    const alg = DPOP_SIGNING_ALGORITHMS.find((name) => name === header.alg);
    if (alg === undefined) return fail(`The proof's alg must be one of ${DPOP_SIGNING_ALGORITHMS.join(', ')}.`);
    const jwk = header.jwk;
    if (!isObject(jwk)) return fail('The proof carries no jwk.');
    if (PRIVATE_MEMBERS.some((name) => name in jwk)) return fail('The proof\'s jwk must be a public key.');
    if (!keyFits(alg, jwk)) return fail(`The proof's jwk is not a key for ${alg}.`);
    if (!isText(claims.jti) || claims.jti.length > MAX_JTI_LENGTH) return fail('The proof carries no valid jti.');
    if (claims.htm !== expected.method) return fail('The proof\'s htm does not match the request method.');
    // the URI as the server names it needs no parsing (the common case); any other spelling is normalised
    if (typeof claims.htu !== 'string' || !(expected.uris.includes(claims.htu) || sameTarget(claims.htu, expected.uris))) {
        return fail('The proof\'s htu does not match the request URL.');
    }
    if (typeof claims.iat !== 'number' || !Number.isFinite(claims.iat)) return fail('The proof carries no iat.');
    if (Math.abs(claims.iat - expected.nowSeconds) > DPOP_PROOF_WINDOW_SECONDS) return fail('The proof\'s iat is outside the accepted window.');
    if (expected.accessTokenHash !== undefined && claims.ath !== expected.accessTokenHash) return fail('The proof\'s ath does not match the access token.');
    if (claims.nonce !== undefined && typeof claims.nonce !== 'string') return fail('The proof\'s nonce must be a string.');
    return { ok: true, alg, jwk, jti: claims.jti, iat: claims.iat, nonce: typeof claims.nonce === 'string' ? claims.nonce : null };
}
