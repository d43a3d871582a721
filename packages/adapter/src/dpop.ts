import { constants, createHash, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { checkDpopProof, DPOP_PROOF_WINDOW_SECONDS, ErrorCode, jwkThumbprintInput, type DpopSigningAlgorithm } from '@realmgate/core';
import { RealmgateError } from '@realmgate/client';

/* The resource server's side of DPoP (RFC 9449 §7): the proof a request carries beside a bound token. */

/** What a framework binding hands the verifier of a request with `Authorization: DPoP`. */
export interface DpopRequest {
    method: string;
    /** the absolute URL the request was sent to (its query and fragment are ignored, RFC 9449 §4.3 item 9) */
    url: string;
    /** the raw `DPoP` header: undefined when absent, an array when repeated */
    proof: string | string[] | undefined;
}

/** How a framework binding learns the URL a request was sent to. */
export interface DpopBindingOptions {
    /**
     * the URL this resource server is reached at (e.g. https://api.example.com), the base of a
     * proof's `htu`; unset: the request's own scheme and Host header — set it behind a proxy
     */
    publicUrl?: string;
}

/** The absolute URL of a request as its proof names it: the configured public URL, else scheme and Host, then the path. */
export function requestUrl(options: DpopBindingOptions, request: { secure: boolean; host: string | undefined; path: string }): string {
    const base = options.publicUrl?.replace(/\/+$/, '') ?? `${request.secure ? 'https' : 'http'}://${request.host ?? 'localhost'}`;
    return `${base}${request.path}`;
}

export const invalidProof = (message: string) => new RealmgateError({ statusCode: 401, code: ErrorCode.INVALID_DPOP_PROOF, message });

const base64urlSha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** node:crypto's verification of a proof signature (RFC 7518 §3.3–3.5, RFC 8037 §3.1). */
function proofSignatureValid(alg: DpopSigningAlgorithm, key: KeyObject, signingInput: string, signature: Buffer): boolean {
    const input = Buffer.from(signingInput);
    if (alg === 'EdDSA' || alg === 'Ed25519') return verify(null, input, key, signature);
    if (alg === 'ES256') return verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    return verify('sha256', input, alg === 'PS256' ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } : key, signature);
}

function decodeJson(segment: string | undefined): Record<string, unknown> | null {
    try {
        const value: unknown = JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8'));
        return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
    } catch {
        return null;
    }
}

/** The jti values seen within the proof window, per process: a bounded memory of proofs already used (RFC 9449 §11.1). */
const SEEN_PROOFS = 100_000;

/**
 * A check of the DPoP proof of a request presenting a bound token: the RFC 9449 §4.3 rules of
 * `@realmgate/core`, the signature by the header's key, that key's thumbprint equal to the token's
 * `cnf.jkt`, `ath` the hash of the token (§7.1), and the proof not seen before by this process.
 */
export function createDpopCheck(now: () => number) {
    const seen = new Map<string, number>();
    const remember = (id: string, until: number): boolean => {
        const at = now();
        if ((seen.get(id) ?? 0) > at) return false;
        if (seen.size >= SEEN_PROOFS) {
            for (const [entry, expiry] of seen) if (expiry <= at) seen.delete(entry);
            if (seen.size >= SEEN_PROOFS) seen.delete(seen.keys().next().value!);
        }
        seen.set(id, until);
        return true;
    };
    return (token: string, boundJkt: string, request: DpopRequest): void => {
        const { proof } = request;
        if (typeof proof !== 'string' || proof === '') throw invalidProof(proof === undefined ? 'a DPoP proof is required' : 'more than one DPoP proof');
        const parts = proof.split('.');
        const header = decodeJson(parts[0]);
        const claims = decodeJson(parts[1]);
        if (parts.length !== 3 || !header || !claims) throw invalidProof('the DPoP proof is not a JWT');
        const checked = checkDpopProof(header, claims, {
            method: request.method, uris: [request.url], nowSeconds: Math.floor(now() / 1000), accessTokenHash: base64urlSha256(token),
        });
        if (!checked.ok) throw invalidProof(checked.reason);
        const thumbprintInput = jwkThumbprintInput(checked.jwk);
        if (thumbprintInput === null || base64urlSha256(thumbprintInput) !== boundJkt) throw invalidProof('the DPoP proof is signed by another key than the token is bound to');
        let valid: boolean;
        try {
            valid = proofSignatureValid(checked.alg, createPublicKey({ key: checked.jwk as JsonWebKey, format: 'jwk' }), `${parts[0]}.${parts[1]}`, Buffer.from(parts[2]!, 'base64url'));
        } catch {
            valid = false;
        }
        if (!valid) throw invalidProof('the DPoP proof signature does not verify');
        if (!remember(`${boundJkt}:${checked.jti}`, (checked.iat + DPOP_PROOF_WINDOW_SECONDS) * 1000)) throw invalidProof('the DPoP proof was used before');
    };
}
