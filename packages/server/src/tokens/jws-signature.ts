import { constants, createHmac, timingSafeEqual, verify, type KeyObject, type VerifyKeyObjectInput } from 'node:crypto';

type VerifyKeyWithOptions = VerifyKeyObjectInput & { padding?: number; saltLength?: number; dsaEncoding?: 'der' | 'ieee-p1363' };

/**
 * The JWS signature check of the hot paths (client assertions, DPoP proofs) with node:crypto and a
 * KeyObject made once per key: jose's generic WebCrypto path costs a key lookup, a job and a
 * promise per call. The algorithms are those a client may sign with (RFC 7518 §3.2–3.5, RFC 8037
 * §3.1); every other `alg` is refused before a key is looked at.
 */
export type JwsAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'EdDSA' | 'Ed25519' | 'HS256' | 'HS384' | 'HS512';

/** RFC 7518 §3.3, §3.5: an RSA key shorter than 2048 bits is refused (jose's own floor too). */
const MIN_RSA_BITS = 2048;

const HMAC_DIGESTS: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

/**
 * Whether `key` is the kind of key `alg` names (RFC 8725 §3.1: the algorithm is checked against the
 * key, never taken from the token alone): ES256 a P-256 key, RS256/PS256 an RSA key of at least
 * 2048 bits, EdDSA an Ed25519 or Ed448 key (Ed25519 only the former), an HMAC a secret key. A private key never verifies here.
 */
function keyFitsAlgorithm(alg: string, key: KeyObject): boolean {
    if (alg in HMAC_DIGESTS) return key.type === 'secret';
    if (key.type !== 'public') return false;
    switch (alg) {
        case 'ES256': return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
        case 'RS256':
        case 'PS256': return key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS;
        // RFC 8037 §3.1: EdDSA over either curve; RFC 9864's Ed25519 names the one
        case 'EdDSA': return key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448';
        case 'Ed25519': return key.asymmetricKeyType === 'ed25519';
        default: return false;
    }
}

/** node:crypto's digest and key options for an asymmetric algorithm (RFC 7518 §3.3–3.5, RFC 8037 §3.1). */
function asymmetric(alg: string, key: KeyObject): [digest: string | null, options: KeyObject | VerifyKeyWithOptions] {
    switch (alg) {
        case 'ES256': return ['sha256', { key, dsaEncoding: 'ieee-p1363' }];
        case 'RS256': return ['sha256', { key, padding: constants.RSA_PKCS1_PADDING }];
        case 'PS256': return ['sha256', { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }];
        default: return [null, key];
    }
}

/**
 * Whether `signature` is `alg`'s signature of `input` (the JWS signing input, RFC 7515 §5.2) under
 * `key`. ES256 signatures are R || S (RFC 7518 §3.4), hence `ieee-p1363`; PS256 is RSASSA-PSS with
 * SHA-256 and a 32-byte salt (§3.5); an HMAC is compared in constant time. False, never an
 * exception, for a key that does not fit the algorithm or a malformed signature.
 */
export function jwsSignatureHolds(alg: string, key: KeyObject, input: Buffer, signature: Buffer): boolean {
    if (!keyFitsAlgorithm(alg, key)) return false;
    try {
        const hmac = HMAC_DIGESTS[alg];
        if (hmac !== undefined) {
            const expected = createHmac(hmac, key).update(input).digest();
            return expected.length === signature.length && timingSafeEqual(expected, signature);
        }
        const [digest, options] = asymmetric(alg, key);
        return verify(digest, input, options, signature);
    } catch {
        return false;
    }
}
