import { checkDpopProof, DPOP_PROOF_WINDOW_SECONDS, jwkThumbprintInput } from '@realmgate/core';
import { createHash, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { ReplayGuard } from '../limits/replay-guard.js';
import { decodeJws } from '../tokens/jws.js';
import { jwsSignatureHolds } from '../tokens/jws-signature.js';
import type { DpopNonces } from './dpop-nonce.js';

/** What a request offers a DPoP verifier: its `DPoP` header (RFC 9449 §4.1), method and path. */
export interface DpopPresentation {
    /** the raw `DPoP` header: undefined when absent, an array when repeated */
    proof: string | string[] | undefined;
    method: string;
    /** the request's path, without the query string; the verifier puts the public URLs before it */
    path: string;
}

/** A proof that holds: the thumbprint of its key (RFC 7638, the `jkt` of RFC 9449 §6.1). */
export interface DpopProof {
    ok: true;
    jkt: string;
    /** its JWS `alg` (a realm's security profile may accept fewer than the verifier does) */
    algorithm: string;
    /** the nonce to hand out with the answer (`DPoP-Nonce`) when nonces are required; null otherwise */
    nonce: string | null;
}

/** A proof refused: RFC 9449's `error` code, and with `use_dpop_nonce` the nonce to retry with (§8). */
export interface DpopFailure {
    ok: false;
    code: 'invalid_dpop_proof' | 'use_dpop_nonce';
    message: string;
    nonce: string | null;
}

export interface DpopVerifier {
    /**
     * RFC 9449 §4.3 for the request's proof, in the realm whose replay store and nonce policy
     * apply; `accessToken`: the token the request presents, whose hash the proof's `ath` must be.
     */
    verify(presentation: DpopPresentation, context: { realmId: string; accessToken?: string }): Promise<DpopProof | DpopFailure>;
    /** the nonce to hand out for the realm (RFC 9449 §8.2), null when it requires none */
    nonceFor(realmId: string): string | null;
}

export interface DpopVerifierDeps {
    replayGuard: ReplayGuard;
    nonces: DpopNonces;
    /** whether proofs in the realm must carry a server nonce (DPOP_NONCE_REQUIRED) */
    nonceRequired(realmId: string): boolean;
    /** the base URLs the server is reached at (PUBLIC_URL and the mutual-TLS alias), without a trailing slash */
    publicUrls: readonly string[];
    clock?: () => number;
}

/** RFC 7518 §3.5 via RFC 8017: an RSA proof key shorter than this is refused (RFC 9449 §11.6 relies on a strong key). */
const MIN_RSA_BITS = 2048;
/** Parsed proof keys and their thumbprints, remembered by their thumbprint input: a client proves with one key request after request. */
const REMEMBERED_KEYS = 10_000;

/** base64url SHA-256: the thumbprint of RFC 7638 §3.1 and the `ath` of RFC 9449 §4.2. */
const sha256Base64url = (value: string): string => createHash('sha256').update(value).digest('base64url');

export function createDpopVerifier(deps: DpopVerifierDeps): DpopVerifier {
    const clock = deps.clock ?? Date.now;
    const keys = new Map<string, { key: KeyObject; jkt: string }>();
    const keyOf = (thumbprintInput: string, jwk: Record<string, unknown>): { key: KeyObject; jkt: string } | null => {
        const known = keys.get(thumbprintInput);
        if (known) return known;
        let key: KeyObject;
        try {
            key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
        } catch {
            return null;
        }
        if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return null;
        if (keys.size >= REMEMBERED_KEYS) keys.delete(keys.keys().next().value!);
        const entry = { key, jkt: sha256Base64url(thumbprintInput) };
        keys.set(thumbprintInput, entry);
        return entry;
    };
    const nonceFor = (realmId: string) => (deps.nonceRequired(realmId) ? deps.nonces.current() : null);
    const invalid = (message: string): DpopFailure => ({ ok: false, code: 'invalid_dpop_proof', message, nonce: null });

    return {
        nonceFor,
        async verify(presentation, context) {
            const { proof } = presentation;
            if (proof === undefined || proof === '') return invalid('A DPoP proof is required.');
            // §4.3 item 1: one DPoP header; a repeated one reaches us as an array or joined by commas
            if (typeof proof !== 'string' || proof.includes(',')) return invalid('The request carries more than one DPoP proof.');
            // §4.3 items 2, 3: one well-formed JWT
            const decoded = decodeJws(proof);
            if (!decoded) return invalid('The DPoP proof is not a JWT.');
            const now = clock();
            const checked = checkDpopProof(decoded.header as Record<string, unknown>, decoded.payload, {
                method: presentation.method,
                uris: deps.publicUrls.map((base) => `${base}${presentation.path}`),
                nowSeconds: Math.floor(now / 1000),
                ...(context.accessToken !== undefined ? { accessTokenHash: sha256Base64url(context.accessToken) } : {}),
            });
            if (!checked.ok) return invalid(checked.reason);
            const thumbprintInput = jwkThumbprintInput(checked.jwk);
            const proofKey = thumbprintInput === null ? null : keyOf(thumbprintInput, checked.jwk);
            // §4.3 item 6: the signature verifies with the header's own key
            if (proofKey === null || !jwsSignatureHolds(checked.alg, proofKey.key, Buffer.from(decoded.signingInput), decoded.signature)) {
                return invalid('The DPoP proof\'s signature does not verify with its jwk.');
            }
            const { jkt } = proofKey;
            // §8, §9: a required nonce is the current window's or the previous one's
            const nonce = nonceFor(context.realmId);
            if (nonce !== null && (checked.nonce === null || !deps.nonces.accepts(checked.nonce))) {
                return { ok: false, code: 'use_dpop_nonce', message: 'The DPoP proof must carry the server-provided nonce.', nonce };
            }
            // §11.1: a proof is used once, across replicas, for as long as its iat is accepted
            const first = await deps.replayGuard.claim(
                { kind: 'dpop_proof', realmId: context.realmId, issuer: jkt, jti: checked.jti },
                new Date((checked.iat + DPOP_PROOF_WINDOW_SECONDS) * 1000),
            );
            if (!first) return invalid('The DPoP proof was used before.');
            return { ok: true, jkt, algorithm: checked.alg, nonce };
        },
    };
}
