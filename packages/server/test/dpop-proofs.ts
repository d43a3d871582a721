import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/*
 * DPoP keys and proofs (RFC 9449 §4) made with jose, independently of the server's verifier: the
 * thumbprint is jose's RFC 7638 computation, the proof a JWT jose signs.
 */

export interface DpopKey {
    alg: string;
    privateKey: CryptoKey;
    /** the public key, as a proof's header carries it */
    jwk: JWK;
    /** RFC 7638 SHA-256 thumbprint: the `cnf.jkt` a bound token must carry */
    jkt: string;
}

export async function dpopKey(alg: 'ES256' | 'PS256' | 'RS256' | 'EdDSA' = 'ES256'): Promise<DpopKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(publicKey);
    return { alg, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

export interface ProofOptions {
    htm: string;
    htu: string;
    /** the access token the proof accompanies: its hash becomes `ath` */
    accessToken?: string;
    nonce?: string;
    /** seconds; now by default */
    iat?: number;
    jti?: string;
    /** header members replacing the proof's own (a forged `typ`, `alg` or `jwk`) */
    header?: Record<string, unknown>;
    /** claims replacing or adding to the proof's own */
    claims?: Record<string, unknown>;
}

const accessTokenHash = (token: string): string => createHash('sha256').update(token).digest('base64url');

export async function dpopProof(key: DpopKey, options: ProofOptions): Promise<string> {
    const claims: Record<string, unknown> = {
        htm: options.htm, htu: options.htu, jti: options.jti ?? randomUUID(), iat: options.iat ?? Math.floor(Date.now() / 1000),
        ...(options.accessToken !== undefined ? { ath: accessTokenHash(options.accessToken) } : {}),
        ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
        ...options.claims,
    };
    return new SignJWT(claims).setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk, ...options.header }).sign(key.privateKey);
}
