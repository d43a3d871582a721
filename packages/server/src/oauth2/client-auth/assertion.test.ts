import { createPrivateKey, randomUUID, sign as nodeSign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedTestDatabase } from '../../../test/database-templates.js';
import type { TestDatabase } from '../../../test/databases.js';
import { createCacheRegistry } from '../../cache/registry.js';
import { createRecordingReplayGuard } from '../../limits/replay-guard.js';
import { createOutboundPolicy } from '../../outbound/address-policy.js';
import { createOutboundFetch } from '../../outbound/guarded-fetch.js';
import { recordIdentifier } from '../../storage/replay-guards.js';
import { createClientKeys, type ClientKeySetEntry } from '../client-keys.js';
import {
    AssertionRefusedError, CLIENT_SECRET_JWT_ALGORITHMS, presentedAssertion, PRIVATE_KEY_JWT_ALGORITHMS, verifyClientAssertion,
    type AssertionSubject, type ClientAssertionDeps,
} from './assertion.js';

/**
 * The native client-assertion verifier (node:crypto, assertion.ts) against assertions jose signs,
 * for every algorithm each method admits, and the forgeries RFC 7523 §3, RFC 7515 §4.1.11, RFC 7797
 * and RFC 8725 §2.1/§3.1 warn of: each refused, none spending the jti of a good assertion.
 */
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const ISSUER = 'https://id.example/realms/r1';
const CLIENT = 'c0ffee00-0000-4000-8000-000000000001';

type AsymmetricAlg = (typeof PRIVATE_KEY_JWT_ALGORITHMS)[number];

async function keyPair(alg: AsymmetricAlg, kid: string) {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
    return { alg, kid, privateKey, jwk };
}

const claims = (overrides: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return { iss: CLIENT, sub: CLIENT, aud: ISSUER, jti: randomUUID(), iat: now, exp: now + 120, ...overrides };
};

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A compact JWS over any header, signed by node:crypto with an ES256 key (what jose's SignJWT will not produce). */
function rawEs256(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
    const input = `${b64(header)}.${b64(payload)}`;
    return `${input}.${nodeSign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** jose's private key as node:crypto's, to sign crafted headers with */
const nodePrivateKey = async (key: Parameters<typeof exportJWK>[0]) => createPrivateKey({ key: (await exportJWK(key)) as JsonWebKey, format: 'jwk' });

describe('client assertions verified natively (RFC 7523 §3)', () => {
    let database: TestDatabase;
    let deps: ClientAssertionDeps;
    const keys: Partial<Record<AsymmetricAlg, Awaited<ReturnType<typeof keyPair>>>> = {};
    let client: { id: string; jwks: string; jwksUri: null };
    const secret = 'a-client-secret-of-at-least-thirty-two-bytes!';

    beforeAll(async () => {
        database = await createMigratedTestDatabase('sqlite');
        for (const alg of PRIVATE_KEY_JWT_ALGORITHMS) keys[alg] = await keyPair(alg, `kid-${alg}`);
        client = { id: CLIENT, jwks: JSON.stringify({ keys: Object.values(keys).map((key) => key.jwk) }), jwksUri: null };
        const cache = createCacheRegistry(() => false).create<ClientKeySetEntry>('client_keys', 10, { independentOfBus: true, ttlMs: Infinity });
        deps = {
            keys: createClientKeys({ fetch: createOutboundFetch(createOutboundPolicy([])), cache }),
            replayGuard: createRecordingReplayGuard((key, expiresAt) => recordIdentifier(database.db, 'sqlite', key, expiresAt)),
            endpointUrls: ['https://id.example/token'],
        };
    }, 60_000);
    afterAll(async () => database?.drop());

    const keySubject = (): AssertionSubject => ({
        realmId: 'r1', clientId: CLIENT, issuer: ISSUER, clientIdentifier: CLIENT,
        key: (selector) => deps.keys.keyObjects(client, selector), algorithms: PRIVATE_KEY_JWT_ALGORITHMS,
    });
    const secretSubject = (): AssertionSubject => ({
        realmId: 'r1', clientId: CLIENT, issuer: ISSUER, clientIdentifier: CLIENT, key: new TextEncoder().encode(secret), algorithms: CLIENT_SECRET_JWT_ALGORITHMS,
    });
    const present = (jwt: string) => presentedAssertion({ client_assertion: jwt, client_assertion_type: JWT_BEARER })!;
    const verify = (jwt: string, subject = keySubject()) => verifyClientAssertion(deps, present(jwt), subject);
    const signed = (alg: AsymmetricAlg, payload = claims(), header: Record<string, unknown> = {}) =>
        new SignJWT(payload).setProtectedHeader({ alg, kid: keys[alg]!.kid, ...header }).sign(keys[alg]!.privateKey);

    it.each(PRIVATE_KEY_JWT_ALGORITHMS)('private_key_jwt with %s: a jose-signed assertion verifies once, its replay is refused', async (alg) => {
        const jwt = await signed(alg);
        expect(present(jwt)).toMatchObject({ method: 'private_key_jwt', algorithm: alg, subject: CLIENT });
        await expect(verify(jwt)).resolves.toBeUndefined();
        await expect(verify(jwt)).rejects.toThrow(/used before/);
    });

    it.each(CLIENT_SECRET_JWT_ALGORITHMS)('client_secret_jwt with %s: a jose-signed assertion verifies, another secret does not', async (alg) => {
        const jwt = await new SignJWT(claims()).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
        expect(present(jwt).method).toBe('client_secret_jwt');
        await expect(verify(jwt, secretSubject())).resolves.toBeUndefined();
        const forged = await new SignJWT(claims()).setProtectedHeader({ alg }).sign(new TextEncoder().encode(`${secret}-not`));
        await expect(verify(forged, secretSubject())).rejects.toThrow(/signature verification failed/);
    });

    it('the audience may be the issuer or the endpoint, in a string or a list; nothing else', async () => {
        await expect(verify(await signed('ES256', claims({ aud: 'https://id.example/token' })))).resolves.toBeUndefined();
        await expect(verify(await signed('ES256', claims({ aud: ['https://other.example', ISSUER] })))).resolves.toBeUndefined();
        await expect(verify(await signed('ES256', claims({ aud: 'https://other.example' })))).rejects.toThrow(/"aud"/);
        await expect(verify(await signed('ES256', claims({ aud: [] })))).rejects.toThrow(/"aud"/);
    });

    it('refuses a tampered signature or payload, and does not spend the jti of the genuine one', async () => {
        const jwt = await signed('ES256');
        const [header, payload, signature] = jwt.split('.') as [string, string, string];
        const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
        await expect(verify(`${header}.${payload}.${flipped}`)).rejects.toThrow(/signature verification failed/);
        const other = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), aud: 'https://id.example/token' });
        await expect(verify(`${header}.${other}.${signature}`)).rejects.toThrow(/signature verification failed/);
        await expect(verify(`${header}.${payload}.`)).rejects.toThrow(/signature verification failed/);
        await expect(verify(jwt)).resolves.toBeUndefined();
    });

    it('refuses an alg the key is not for (RFC 8725 §3.1): a header naming another algorithm, or an HMAC keyed with the public key', async () => {
        const ec = keys.ES256!;
        // an RS256 header over an ES256 signature, naming the EC key
        const ecPrivate = await nodePrivateKey(ec.privateKey);
        await expect(verify(rawEs256({ alg: 'RS256', kid: ec.kid }, claims(), ecPrivate))).rejects.toThrow(AssertionRefusedError);
        await expect(verify(rawEs256({ alg: 'PS256', kid: ec.kid }, claims(), ecPrivate))).rejects.toThrow(/no registered key/);
        // the classic confusion: HS256 keyed with the registered public key's text
        const confused = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: ec.kid }).sign(new TextEncoder().encode(JSON.stringify(ec.jwk)));
        expect(present(confused).method).toBe('client_secret_jwt');
        await expect(verifyClientAssertion(deps, { ...present(confused), method: 'private_key_jwt' }, keySubject())).rejects.toThrow(/"alg"/);
        // an asymmetric alg against a client_secret_jwt client's secret
        await expect(verify(await signed('ES256'), secretSubject())).rejects.toThrow(/"alg"/);
    });

    it('refuses alg none, with or without a signature', async () => {
        const unsigned = `${b64({ alg: 'none' })}.${b64(claims())}.`;
        expect(() => present(unsigned)).toThrow(/alg "none" is not accepted/);
        const decoded = present(await signed('ES256'));
        const none = presentedAssertion({ client_assertion: `${b64({ alg: 'ES256' })}.${b64(claims())}.`, client_assertion_type: JWT_BEARER })!;
        await expect(verifyClientAssertion(deps, { ...none, algorithm: 'none', decoded: { ...none.decoded, header: { alg: 'none' } } }, keySubject())).rejects.toThrow(/"alg"/);
        await expect(verifyClientAssertion(deps, { ...decoded, algorithm: 'none' }, keySubject())).rejects.toThrow(/"alg"/);
    });

    it('refuses critical header extensions and an unencoded payload (b64: false), even when the signature holds', async () => {
        const ec = keys.ES256!;
        const ecPrivate = await nodePrivateKey(ec.privateKey);
        // the control: the same crafted signing path verifies without the extensions
        await expect(verify(rawEs256({ alg: 'ES256', kid: ec.kid }, claims(), ecPrivate))).resolves.toBeUndefined();
        await expect(verify(rawEs256({ alg: 'ES256', kid: ec.kid, crit: ['urn:example:ext'], 'urn:example:ext': 1 }, claims(), ecPrivate))).rejects.toThrow(/critical/);
        await expect(verify(rawEs256({ alg: 'ES256', kid: ec.kid, crit: ['b64'], b64: false }, claims(), ecPrivate))).rejects.toThrow(/critical/);
        await expect(verify(rawEs256({ alg: 'ES256', kid: ec.kid, b64: false }, claims(), ecPrivate))).rejects.toThrow(/unencoded/);
        // the unencoded payload itself is no compact JWT
        const header = b64({ alg: 'ES256', kid: ec.kid, crit: ['b64'], b64: false });
        expect(() => present(`${header}.${JSON.stringify(claims())}.AAAA`)).toThrow(/not a JWT/);
    });

    it('checks exp (present, not past, at most five minutes ahead), nbf, iss, sub and jti', async () => {
        const now = Math.floor(Date.now() / 1000);
        await expect(verify(await signed('ES256', claims({ exp: undefined })))).rejects.toThrow(/missing required "exp"/);
        await expect(verify(await signed('ES256', claims({ exp: now - 60 })))).rejects.toThrow(/"exp" claim timestamp/);
        await expect(verify(await signed('ES256', claims({ exp: now + 3600 })))).rejects.toThrow(/more than 300 seconds ahead/);
        await expect(verify(await signed('ES256', claims({ exp: String(now + 60) })))).rejects.toThrow(/"exp" claim must be a number/);
        await expect(verify(await signed('ES256', claims({ nbf: now + 600 })))).rejects.toThrow(/"nbf"/);
        await expect(verify(await signed('ES256', claims({ iss: 'someone-else' })))).rejects.toThrow(/"iss"/);
        await expect(verify(await signed('ES256', claims({ sub: 'someone-else' })))).rejects.toThrow(/"sub"/);
        await expect(verify(await signed('ES256', claims({ jti: undefined })))).rejects.toThrow(/missing required "jti"/);
        await expect(verify(await signed('ES256', claims({ jti: '' })))).rejects.toThrow(/no jti/);
    });

    it('a kid the set lacks matches no registered key; without kid the key of the alg verifies', async () => {
        await expect(verify(await signed('ES256', claims(), { kid: 'unknown' }))).rejects.toThrow(/no registered key/);
        const withoutKid = await new SignJWT(claims()).setProtectedHeader({ alg: 'EdDSA' }).sign(keys.EdDSA!.privateKey);
        await expect(verify(withoutKid)).resolves.toBeUndefined();
    });
});
