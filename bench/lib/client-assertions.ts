/**
 * client_credentials with private_key_jwt (RFC 7523 §2.2): a client registered with an ES256
 * public key, and a pool of assertions signed ahead (untimed) — each one single use, so every
 * request of a load spends a fresh one, as a real client signs one per request.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { Api } from './api.js';
import type { LoadRequest, RoundResult } from './load.js';
import type { Service } from './processes.js';
import { loadOnce, probe } from './load.js';
import type { Scenario } from './scenarios.js';

const FORM = 'application/x-www-form-urlencoded';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface KeyClient {
    id: string;
    kid: string;
    privateKey: CryptoKey;
}

/** A private_key_jwt client of the realm, its public key registered inline. */
export async function seedKeyClient(api: Api, realmId: string, name = 'svc-private-key-jwt'): Promise<KeyClient> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const kid = randomUUID();
    const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    const id = await api.create('clients', { realmId, name, tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [jwk] } });
    return { id, kid, privateKey };
}

/** Assertions for `audience` (the realm's issuer), signed ahead of each load and spent one per request. */
export function assertionPool(client: KeyClient, audience: string, realmName: string) {
    /** encoded forms, each with its own assertion */
    const pool: string[] = [];
    const state = { rate: 3000, dry: 0, spent: '' };
    const formOf = (assertion: string) => new URLSearchParams({ grant_type: 'client_credentials', realm_name: realmName, client_assertion_type: JWT_BEARER, client_assertion: assertion }).toString();
    const sign = () => {
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({ iss: client.id, sub: client.id, aud: audience, jti: randomUUID(), iat: now, exp: now + 240 })
            .setProtectedHeader({ alg: 'ES256', kid: client.kid }).sign(client.privateKey);
    };
    return {
        state,
        /** a pool for `seconds` of load at the best rate seen, ×1.5; a previous round's leftovers are dropped (their lifetime runs) */
        async fill(seconds: number): Promise<void> {
            pool.length = 0;
            const wanted = Math.ceil(state.rate * seconds * 1.5) + 200;
            // the whole form is encoded ahead too: the load generator spends per request what it does for a static body
            for (let i = 0; i < wanted; i++) pool.push(formOf(await sign()));
        },
        observe(requestsPerSecond: number): void {
            state.rate = Math.max(state.rate, requestsPerSecond);
        },
        /** the form of one request with a fresh assertion (the probe) */
        async form(): Promise<string> {
            return formOf(await sign());
        },
        /** `POST /token` grant_type=client_credentials, a fresh assertion per request */
        request(): LoadRequest {
            return {
                method: 'POST', path: '/token', headers: { 'content-type': FORM },
                setupRequest(request) {
                    let body = pool.pop();
                    if (body === undefined) {
                        // a dry pool replays the last one: refused, counted as an error, said in the note
                        state.dry++;
                        body = state.spent;
                    }
                    state.spent = body;
                    return { ...request, body };
                },
            };
        },
    };
}

/** The scenario: fill before each load, spend during it, size the next fill from the rate. */
export async function assertionScenario(key: string, service: Service, pool: ReturnType<typeof assertionPool>, connections: number): Promise<Scenario> {
    const request = pool.request();
    const answer = await probe(service.url, { ...request, body: await pool.form() });
    const failure = answer.status >= 300 ? `${answer.status} ${answer.body.slice(0, 200)}` : undefined;
    return {
        key,
        server: service,
        ...(failure ? { failure } : {}),
        prepare: (seconds) => pool.fill(seconds),
        load: (seconds, settleMs): Promise<RoundResult> => loadOnce(service.url, request, connections, seconds, settleMs),
        observe: (result) => pool.observe((result.requests - result.errors) / result.seconds),
    };
}
