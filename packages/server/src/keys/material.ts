import { createPrivateKey, createPublicKey, generateKeyPair, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Signing algorithms a realm key may have: ES256 by default (P-256: small keys, fast
 * signatures), RS256 because OpenID Connect requires it to be supportable for ID tokens
 * (OIDC Core §15.1).
 */
export const SIGNING_ALGORITHMS = ['ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];
export const DEFAULT_SIGNING_ALGORITHM: SigningAlgorithm = 'ES256';

/** RFC 7518 §3.3: a key of size 2048 bits or larger MUST be used with RS256. */
const RSA_MIN_BITS = 2048;

/** A signing key pair as it is stored: the public half as a JWK, the private half as PKCS#8 PEM. */
export interface SigningMaterial {
    /** the JWK `kty` (RFC 7517 §4.1), stored in auth_keys.type */
    type: 'EC' | 'RSA';
    algorithm: SigningAlgorithm;
    /** public parameters only, with `alg` and `use: 'sig'`; the kid is the row id, added by the store */
    publicJwk: JsonWebKey;
    privatePem: string;
}

/** Key material a caller sent that cannot be used; the message names the problem, never the material. */
export class KeyMaterialError extends Error {}

const generate = promisify(generateKeyPair);

function materialOf(privateKey: KeyObject, algorithm: SigningAlgorithm): SigningMaterial {
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    return {
        type: algorithm === 'ES256' ? 'EC' : 'RSA',
        algorithm,
        publicJwk: { ...jwk, alg: algorithm, use: 'sig' },
        privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    };
}

/** A fresh key pair from node:crypto (generated off the event loop). */
export async function generateSigningMaterial(algorithm: SigningAlgorithm = DEFAULT_SIGNING_ALGORITHM): Promise<SigningMaterial> {
    const { privateKey } = algorithm === 'ES256' ?
        await generate('ec', { namedCurve: 'P-256' }) :
        await generate('rsa', { modulusLength: RSA_MIN_BITS });
    return materialOf(privateKey, algorithm);
}

function parsePrivateKey(input: unknown): KeyObject {
    try {
        if (typeof input === 'string') {
            if (!input.includes('-----BEGIN')) throw new KeyMaterialError('privateKey must be a PEM document or a JWK object.');
            return createPrivateKey({ key: input, format: 'pem' });
        }
        if (input && typeof input === 'object' && !Array.isArray(input)) {
            // a JWK without `d` is a public key (RFC 7518 §6.2.2.1, §6.3.2.1)
            if (!('d' in input)) throw new KeyMaterialError('The JWK carries no private parameters.');
            return createPrivateKey({ key: input as JsonWebKey, format: 'jwk' });
        }
    } catch (error) {
        if (error instanceof KeyMaterialError) throw error;
        // node:crypto's message may quote the input: answer a fixed one
        throw new KeyMaterialError('privateKey is not a readable, unencrypted private key.');
    }
    throw new KeyMaterialError('privateKey must be a PEM document or a JWK object.');
}

/** The algorithm a parsed private key can sign with, or why it cannot be used. */
function algorithmOf(key: KeyObject): SigningAlgorithm {
    const details = key.asymmetricKeyDetails ?? {};
    if (key.asymmetricKeyType === 'ec') {
        if (details.namedCurve !== 'prime256v1') throw new KeyMaterialError('An EC key must be on curve P-256 (ES256).');
        return 'ES256';
    }
    if (key.asymmetricKeyType === 'rsa') {
        if ((details.modulusLength ?? 0) < RSA_MIN_BITS) throw new KeyMaterialError(`An RSA key must have at least ${RSA_MIN_BITS} bits (RFC 7518 §3.3).`);
        return 'RS256';
    }
    throw new KeyMaterialError(`Keys of type ${key.asymmetricKeyType ?? 'unknown'} are not supported; use an EC P-256 or RSA key.`);
}

/**
 * Imported key material (a PEM document of any private-key encoding, or a private JWK), checked
 * with node:crypto and normalised to the stored form; `algorithm`, when given, must match the key.
 */
export function importSigningMaterial(input: unknown, algorithm?: SigningAlgorithm): SigningMaterial {
    const key = parsePrivateKey(input);
    const actual = algorithmOf(key);
    if (algorithm !== undefined && algorithm !== actual) throw new KeyMaterialError(`The key signs with ${actual}, not ${algorithm}.`);
    return materialOf(key, actual);
}
