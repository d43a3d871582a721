import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/*
 * Client assertions (RFC 7523 §2.2) as a client makes them: its key pairs, the JWT it signs, the
 * form members it sends, and a JWKS server on loopback whose keys a test rotates.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface ClientKeyPair {
    kid: string;
    alg: 'RS256' | 'PS256' | 'ES256' | 'EdDSA';
    privateKey: CryptoKey;
    /** the public JWK a client registers */
    jwk: JWK;
}

export async function clientKeyPair(alg: ClientKeyPair['alg'] = 'ES256', kid = randomUUID()): Promise<ClientKeyPair> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** The claims of a well-formed assertion of `clientId` for `audience`, alive one minute; `claims` replaces or (undefined) drops members. */
export function assertionClaims(clientId: string, audience: string | string[], claims: Record<string, unknown> = {}): JWTPayload {
    const now = Math.floor(Date.now() / 1000);
    const base: Record<string, unknown> = { iss: clientId, sub: clientId, aud: audience, jti: randomUUID(), iat: now, exp: now + 60, ...claims };
    return Object.fromEntries(Object.entries(base).filter(([, value]) => value !== undefined)) as JWTPayload;
}

/** A private_key_jwt assertion signed with the pair (its kid in the header). */
export function signAssertion(key: ClientKeyPair, payload: JWTPayload): Promise<string> {
    return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

/** A client_secret_jwt assertion: HMAC keyed with the secret (OIDC Core §9). */
export function signWithSecret(secret: string, payload: JWTPayload, alg: 'HS256' | 'HS384' | 'HS512' = 'HS256'): Promise<string> {
    return new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

/** An unsecured JWT (RFC 7519 §6): `alg: none`, no signature. */
export function unsecuredAssertion(payload: JWTPayload): string {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${part({ alg: 'none', typ: 'JWT' })}.${part(payload)}.`;
}

/** The form members of client authentication by assertion. */
export const assertionForm = (assertion: string): Record<string, string> => ({ client_assertion_type: JWT_BEARER, client_assertion: assertion });

/** A JWKS endpoint on loopback: the keys it serves change with `keys`, `fetches` counts its answers. */
export async function startJwksServer(): Promise<{ url: string; state: { keys: JWK[]; fetches: number }; close(): Promise<void> }> {
    const state = { keys: [] as JWK[], fetches: 0 };
    const server: Server = createServer((_request, response) => {
        state.fetches++;
        response.writeHead(200, { 'content-type': 'application/jwk-set+json' });
        response.end(JSON.stringify({ keys: state.keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
        state,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
}
