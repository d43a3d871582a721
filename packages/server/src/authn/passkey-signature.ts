import { createHash, createPublicKey, timingSafeEqual, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';

/**
 * The checks of an assertion (WebAuthn Level 3 §7.2 steps 10-20) with node:crypto, for the sign-in's
 * hot path: @simplewebauthn/server imports the public key through WebCrypto on every call, which
 * alone costs more than the rest (measured in bench/lib/micro.ts); here the COSE key (decoded by
 * the library's own helper) becomes a KeyObject and the signature is checked directly. Registration
 * and the options stay with the library; a test keeps the two verifications in agreement
 * (authn/passkey-signature.test.ts).
 */

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
/** rpIdHash (32) ‖ flags (1) ‖ signCount (4), §6.1 */
const AUTHENTICATOR_DATA_MIN = 37;

/** COSE (RFC 9053) key types and algorithms a registration accepts by default: EdDSA, ES256, RS256. */
const COSE = { kty: 1, alg: 3, crv: -1, x: -2, y: -3, n: -1, e: -2 } as const;

export interface VerifyingKey {
    key: KeyObject;
    /** null: the algorithm hashes itself (Ed25519) */
    hash: 'sha256' | null;
}

const b64u = (value: unknown): string => (value instanceof Uint8Array ? Buffer.from(value).toString('base64url') : '');

/**
 * Where the verifying keys of stored public keys are remembered (a registered bounded cache,
 * wire.ts `passkey_keys`): a KeyObject is a pure function of the stored bytes, so an entry is
 * never stale, and making one costs about as much as the signature check itself.
 */
export interface VerifyingKeyMemo {
    get(publicKey: string): VerifyingKey | undefined;
    set(publicKey: string, key: VerifyingKey): void;
}

/** The credential's COSE public key as a KeyObject; null for a key type or algorithm not accepted. */
function verifyingKeyOf(cose: Uint8Array): VerifyingKey | null {
    const map = decodeCredentialPublicKey(new Uint8Array(cose)) as unknown as Map<number, unknown>;
    const kty = map.get(COSE.kty);
    const alg = map.get(COSE.alg);
    let jwk: JsonWebKey;
    let hash: VerifyingKey['hash'] = 'sha256';
    if (kty === 2 && alg === -7 && map.get(COSE.crv) === 1) jwk = { kty: 'EC', crv: 'P-256', x: b64u(map.get(COSE.x)), y: b64u(map.get(COSE.y)) };
    else if (kty === 1 && alg === -8 && map.get(COSE.crv) === 6) {
        jwk = { kty: 'OKP', crv: 'Ed25519', x: b64u(map.get(COSE.x)) };
        hash = null;
    } else if (kty === 3 && alg === -257) jwk = { kty: 'RSA', n: b64u(map.get(COSE.n)), e: b64u(map.get(COSE.e)) };
    else return null;
    return { key: createPublicKey({ key: jwk, format: 'jwk' }), hash };
}

/** The parts of an AuthenticationResponseJSON the checks read. */
export interface AssertionParts {
    response: { clientDataJSON?: unknown; authenticatorData?: unknown; signature?: unknown };
}

/**
 * §7.2: clientData type `webauthn.get`, the expected challenge, the exact origin, not cross-origin;
 * the RP id's hash, user presence and user verification in the authenticator data; the signature
 * over authenticatorData ‖ SHA-256(clientDataJSON) by the credential's key. Answers the signature
 * counter, or null when any check fails (the counter itself is judged by the caller, step 21).
 */
export function verifyAssertionParts(
    expected: { rpId: string; origin: string; challenge: string }, publicKey: string, assertion: AssertionParts, memo?: VerifyingKeyMemo,
): number | null {
    const { clientDataJSON, authenticatorData, signature } = assertion.response;
    if (typeof clientDataJSON !== 'string' || typeof authenticatorData !== 'string' || typeof signature !== 'string') return null;
    try {
        const clientDataBytes = Buffer.from(clientDataJSON, 'base64url');
        const clientData = JSON.parse(clientDataBytes.toString('utf8')) as { type?: unknown; challenge?: unknown; origin?: unknown; crossOrigin?: unknown };
        if (clientData.type !== 'webauthn.get' || clientData.challenge !== expected.challenge || clientData.origin !== expected.origin || clientData.crossOrigin === true) return null;
        const data = Buffer.from(authenticatorData, 'base64url');
        if (data.length < AUTHENTICATOR_DATA_MIN) return null;
        const rpIdHash = createHash('sha256').update(expected.rpId).digest();
        if (!timingSafeEqual(data.subarray(0, 32), rpIdHash)) return null;
        const flags = data[32]!;
        if ((flags & FLAG_USER_PRESENT) === 0 || (flags & FLAG_USER_VERIFIED) === 0) return null;
        const key = memo?.get(publicKey) ?? verifyingKeyOf(Buffer.from(publicKey, 'base64url'));
        if (!key) return null;
        memo?.set(publicKey, key);
        const signed = Buffer.concat([data, createHash('sha256').update(clientDataBytes).digest()]);
        if (!verify(key.hash, signed, key.key, Buffer.from(signature, 'base64url'))) return null;
        return data.readUInt32BE(33);
    } catch {
        // malformed JSON, CBOR or key: a failed assertion, never a server error
        return null;
    }
}
