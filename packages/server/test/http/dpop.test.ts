import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { dpopKey, dpopProof, type DpopKey } from '../dpop-proofs.js';
import { createRealm } from '../grant-fixtures.js';
import { createClient, createUser } from '../identities.js';

/*
 * RFC 9449 end to end through the app: DPoP-bound tokens at /token, introspection's cnf, the API
 * routes and /userinfo, refresh binding of public clients, and the attacks of §11 — replay, another
 * method or URL, a stale iat, a stolen bound token without its key or as a bearer, a wrong ath.
 */

const PUBLIC_URL = 'https://auth.example.test';
const TOKEN_URL = `${PUBLIC_URL}/token`;
const CLIENT_ME = `${PUBLIC_URL}/clients/@me`;

interface TokenAnswer { access_token: string; token_type: string; refresh_token?: string; error?: string }

function tokenRequest(app: TestApp, payload: Record<string, string>, headers: Record<string, string> = {}) {
    return app.request({ method: 'POST', url: '/token', as: null, payload, headers });
}

describeEachDialect('DPoP (RFC 9449)', (dialect) => {
    let now = Date.now();
    const app = useTestApp(dialect, { publicUrl: PUBLIC_URL }, { dpopClock: () => now });
    let realmId: string;
    let client: Awaited<ReturnType<typeof createClient>>;
    let key: DpopKey;
    let otherKey: DpopKey;

    beforeAll(async () => {
        realmId = await createRealm(app);
        client = await createClient(app, realmId);
        [key, otherKey] = await Promise.all([dpopKey('ES256'), dpopKey('EdDSA')]);
    });

    const clientCredentials = async (proofKey: DpopKey | null = key) => {
        const headers: Record<string, string> = { authorization: client.header };
        if (proofKey) headers.dpop = await dpopProof(proofKey, { htm: 'POST', htu: TOKEN_URL });
        return tokenRequest(app, { grant_type: 'client_credentials', realm_id: realmId }, headers);
    };
    const boundToken = async () => ((await clientCredentials()).json() as TokenAnswer).access_token;
    const callMe = (authorization: string, proof?: string) => app.request({
        method: 'GET', url: '/clients/@me', as: authorization, headers: proof === undefined ? {} : { dpop: proof },
    });

    it('binds client_credentials to the proof key: token_type DPoP, cnf.jkt the key thumbprint (RFC 9449 §5, §6.1)', async () => {
        now = Date.now();
        const response = await clientCredentials();
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json() as TokenAnswer;
        expect(body.token_type).toBe('DPoP');
        expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.jkt });
        const plain = (await clientCredentials(null)).json() as TokenAnswer;
        expect(plain.token_type).toBe('Bearer');
        expect(decodeJwt(plain.access_token).cnf).toBeUndefined();
    });

    it('accepts the bound token with the DPoP scheme and a proof of its key; refuses it as a bearer (§7.2)', async () => {
        now = Date.now();
        const token = await boundToken();
        const ok = await callMe(`DPoP ${token}`, await dpopProof(key, { htm: 'GET', htu: CLIENT_ME, accessToken: token }));
        expect(ok.statusCode, ok.body).toBe(200);
        expect(ok.json().data.id).toBe(client.id);
        const asBearer = await callMe(`Bearer ${token}`);
        expect(asBearer.statusCode).toBe(401);
        expect(asBearer.headers['www-authenticate']).toMatch(/^DPoP algs="ES256 PS256 RS256 EdDSA Ed25519", error="invalid_token"/);
    });

    it('refuses a stolen bound token without a proof, with another key\'s proof, or with a wrong ath (§11.1, §11.3)', async () => {
        now = Date.now();
        const token = await boundToken();
        const cases = [
            undefined,
            await dpopProof(otherKey, { htm: 'GET', htu: CLIENT_ME, accessToken: token }),
            await dpopProof(key, { htm: 'GET', htu: CLIENT_ME, accessToken: `${token}x` }),
            await dpopProof(key, { htm: 'GET', htu: CLIENT_ME }),
        ];
        for (const proof of cases) {
            const response = await callMe(`DPoP ${token}`, proof);
            expect(response.statusCode, String(proof)).toBe(401);
            expect(response.json().code).toBe('invalid_dpop_proof');
            expect(response.headers['www-authenticate']).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
        }
    });

    it('refuses a replayed proof, another method or URL, and an iat outside the window once the clock moved (§11.1, §4.3)', async () => {
        now = Date.now();
        const token = await boundToken();
        const proof = await dpopProof(key, { htm: 'GET', htu: CLIENT_ME, accessToken: token });
        expect((await callMe(`DPoP ${token}`, proof)).statusCode).toBe(200);
        expect((await callMe(`DPoP ${token}`, proof)).json().message).toMatch(/used before/);
        const wrongMethod = await dpopProof(key, { htm: 'POST', htu: CLIENT_ME, accessToken: token });
        expect((await callMe(`DPoP ${token}`, wrongMethod)).json().message).toMatch(/htm/);
        const wrongUrl = await dpopProof(key, { htm: 'GET', htu: `${PUBLIC_URL}/users/@me`, accessToken: token });
        expect((await callMe(`DPoP ${token}`, wrongUrl)).json().message).toMatch(/htu/);
        // the query and fragment are not part of htu; scheme and host case and the default port are normalised
        const normalised = await dpopProof(key, { htm: 'GET', htu: 'HTTPS://Auth.Example.Test:443/clients/@me?x=1#f', accessToken: token });
        expect((await callMe(`DPoP ${token}`, normalised)).statusCode).toBe(200);
        const stale = await dpopProof(key, { htm: 'GET', htu: CLIENT_ME, accessToken: token });
        // 61 s after the proof was signed (its iat is the real clock at signing, not the test's start)
        now = Date.now() + 61_000;
        try {
            const response = await callMe(`DPoP ${token}`, stale);
            expect(response.statusCode).toBe(401);
            expect(response.json().message).toMatch(/iat/);
        } finally {
            now = Date.now();
        }
    });

    it('refuses malformed proofs: alg none or HS256, a private jwk, another typ, a repeated header', async () => {
        now = Date.now();
        const token = await boundToken();
        const base = { htm: 'GET', htu: CLIENT_ME, accessToken: token };
        const unsigned = (header: Record<string, unknown>) => {
            const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
            return `${segment({ typ: 'dpop+jwt', jwk: key.jwk, ...header })}.${segment({ htm: 'GET', htu: CLIENT_ME, jti: randomUUID(), iat: Math.floor(now / 1000) })}.`;
        };
        const proofs = [
            unsigned({ alg: 'none' }),
            unsigned({ alg: 'HS256' }),
            await dpopProof(key, { ...base, header: { typ: 'JWT' } }),
            await dpopProof(key, { ...base, header: { jwk: { ...key.jwk, d: 'AAAA' } } }),
            'not-a-jwt',
        ];
        for (const proof of proofs) expect((await callMe(`DPoP ${token}`, proof)).json().code, proof).toBe('invalid_dpop_proof');
        const twice = await app.request({
            method: 'GET', url: '/clients/@me', as: `DPoP ${token}`,
            headers: { dpop: [await dpopProof(key, base), await dpopProof(key, base)] },
        });
        expect(twice.json().code).toBe('invalid_dpop_proof');
    });

    it('refuses an unbound token under the DPoP scheme', async () => {
        now = Date.now();
        const token = ((await clientCredentials(null)).json() as TokenAnswer).access_token;
        const response = await callMe(`DPoP ${token}`, await dpopProof(key, { htm: 'GET', htu: CLIENT_ME, accessToken: token }));
        expect(response.statusCode).toBe(401);
        expect(response.json().code).toBe('invalid_token');
    });

    it('answers invalid_dpop_proof at /token for a bad or replayed proof (§5)', async () => {
        now = Date.now();
        const proof = await dpopProof(key, { htm: 'POST', htu: TOKEN_URL });
        const payload = { grant_type: 'client_credentials', realm_id: realmId };
        expect((await tokenRequest(app, payload, { authorization: client.header, dpop: proof })).statusCode).toBe(200);
        const replay = await tokenRequest(app, payload, { authorization: client.header, dpop: proof });
        expect(replay.statusCode).toBe(400);
        expect(replay.json()).toMatchObject({ error: 'invalid_dpop_proof', code: 'invalid_dpop_proof' });
        const wrongUrl = await tokenRequest(app, payload, { authorization: client.header, dpop: await dpopProof(key, { htm: 'POST', htu: `${PUBLIC_URL}/token/introspect` }) });
        expect(wrongUrl.json().error).toBe('invalid_dpop_proof');
    });

    it('answers cnf.jkt in introspection of a bound token (§6.2), nothing for a bearer token', async () => {
        now = Date.now();
        const token = await boundToken();
        const introspect = async (value: string) => (await app.request({
            method: 'POST', url: '/token/introspect', as: client.header, payload: { token: value },
        })).json();
        expect(await introspect(token)).toMatchObject({ active: true, cnf: { jkt: key.jkt } });
        const plain = ((await clientCredentials(null)).json() as TokenAnswer).access_token;
        expect((await introspect(plain)).cnf).toBeUndefined();
    });

    it('advertises dpop_signing_alg_values_supported in discovery (§5.1)', async () => {
        const document = await app.json({ method: 'GET', url: '/.well-known/openid-configuration', as: null }, 200);
        expect(document.dpop_signing_alg_values_supported).toEqual(['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519']);
    });

    describe('refresh tokens and userinfo', () => {
        let spaId: string;
        let user: Awaited<ReturnType<typeof createUser>>;
        beforeAll(async () => {
            spaId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: `spa-${randomUUID().slice(0, 8)}`, realmId } }, 201)).data.id;
            user = await createUser(app, realmId);
        });
        const passwordLogin = async (clientFields: Record<string, string>, headers: Record<string, string>) => tokenRequest(app, {
            grant_type: 'password', username: user.name, password: user.password, realm_id: realmId, scope: 'openid', ...clientFields,
        }, headers);
        const refreshWith = async (refreshToken: string, clientFields: Record<string, string>, headers: Record<string, string> = {}) =>
            tokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken, ...clientFields }, headers);

        it('binds a public client\'s refresh token to the key: no proof → invalid_grant, another key → invalid_dpop_proof, the key → DPoP (§5)', async () => {
            now = Date.now();
            const login = await passwordLogin({ client_id: spaId }, { dpop: await dpopProof(key, { htm: 'POST', htu: TOKEN_URL }) });
            expect(login.statusCode, login.body).toBe(200);
            const tokens = login.json() as TokenAnswer;
            expect(decodeJwt(tokens.refresh_token!).cnf).toEqual({ jkt: key.jkt });
            const without = await refreshWith(tokens.refresh_token!, { client_id: spaId });
            expect(without.json()).toMatchObject({ error: 'invalid_grant' });
            const other = await refreshWith(tokens.refresh_token!, { client_id: spaId }, { dpop: await dpopProof(otherKey, { htm: 'POST', htu: TOKEN_URL }) });
            expect(other.json()).toMatchObject({ error: 'invalid_dpop_proof' });
            const refreshed = await refreshWith(tokens.refresh_token!, { client_id: spaId }, { dpop: await dpopProof(key, { htm: 'POST', htu: TOKEN_URL }) });
            expect(refreshed.statusCode, refreshed.body).toBe(200);
            const next = refreshed.json() as TokenAnswer;
            expect(next.token_type).toBe('DPoP');
            expect(decodeJwt(next.access_token).cnf).toEqual({ jkt: key.jkt });
            expect(decodeJwt(next.refresh_token!).cnf).toEqual({ jkt: key.jkt });
        });

        it('leaves a confidential client\'s refresh token unbound: its refresh needs no proof', async () => {
            now = Date.now();
            const confidential = await createClient(app, realmId);
            const login = await passwordLogin({}, { authorization: confidential.header, dpop: await dpopProof(key, { htm: 'POST', htu: TOKEN_URL }) });
            const tokens = login.json() as TokenAnswer;
            expect(tokens.token_type).toBe('DPoP');
            expect(decodeJwt(tokens.refresh_token!).cnf).toBeUndefined();
            const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, { authorization: confidential.header });
            expect((refreshed.json() as TokenAnswer).token_type).toBe('Bearer');
        });

        it('answers /userinfo for a bound token with its proof, refuses it as a bearer or as a form member', async () => {
            now = Date.now();
            const login = await passwordLogin({ client_id: spaId }, { dpop: await dpopProof(key, { htm: 'POST', htu: TOKEN_URL }) });
            const token = (login.json() as TokenAnswer).access_token;
            const ok = await app.request({
                method: 'GET', url: '/userinfo', as: `DPoP ${token}`, headers: { dpop: await dpopProof(key, { htm: 'GET', htu: `${PUBLIC_URL}/userinfo`, accessToken: token }) },
            });
            expect(ok.statusCode, ok.body).toBe(200);
            expect(ok.json().sub).toBe(user.id);
            const bearer = await app.request({ method: 'GET', url: '/userinfo', as: `Bearer ${token}` });
            expect(bearer.statusCode).toBe(401);
            const form = await app.request({
                method: 'POST', url: '/userinfo', as: null, payload: `access_token=${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
            });
            expect(form.statusCode).toBe(401);
        });
    });
});

describeEachDialect('DPoP server nonces (RFC 9449 §8, §9)', (dialect) => {
    let now = Date.now();
    const app = useTestApp(dialect, { publicUrl: PUBLIC_URL, dpop: { nonceRequired: true, nonceSecret: 'a nonce secret for the suite' } }, { dpopClock: () => now });
    let realmId: string;
    let client: Awaited<ReturnType<typeof createClient>>;
    let key: DpopKey;
    beforeAll(async () => {
        realmId = await createRealm(app);
        client = await createClient(app, realmId);
        key = await dpopKey('PS256');
    });
    const obtain = async (nonce?: string) => tokenRequest(app, { grant_type: 'client_credentials', realm_id: realmId }, {
        authorization: client.header, dpop: await dpopProof(key, { htm: 'POST', htu: TOKEN_URL, iat: Math.floor(now / 1000), ...(nonce ? { nonce } : {}) }),
    });

    it('answers use_dpop_nonce with a DPoP-Nonce, accepts the nonce, hands the next one with the token', async () => {
        now = Date.now();
        const first = await obtain();
        expect(first.statusCode).toBe(400);
        expect(first.json()).toMatchObject({ error: 'use_dpop_nonce' });
        const nonce = first.headers['dpop-nonce'] as string;
        expect(nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/);
        const second = await obtain(nonce);
        expect(second.statusCode, second.body).toBe(200);
        expect(second.headers['dpop-nonce']).toBe(nonce);
        expect((await obtain('made-up')).json().error).toBe('use_dpop_nonce');
    });

    it('rotates nonces: the previous window\'s stays accepted, an older one is refused with a fresh one', async () => {
        now = Date.now();
        const nonce = (await obtain()).headers['dpop-nonce'] as string;
        try {
            now += 300_000;
            const next = await obtain(nonce);
            expect(next.statusCode, next.body).toBe(200);
            expect(next.headers['dpop-nonce']).not.toBe(nonce);
            now += 300_000;
            const old = await obtain(nonce);
            expect(old.json().error).toBe('use_dpop_nonce');
            expect(old.headers['dpop-nonce']).toMatch(/^[A-Za-z0-9_-]{20,}$/);
            expect(old.headers['dpop-nonce']).not.toBe(nonce);
        } finally {
            now = Date.now();
        }
    });

    it('asks an API route\'s proof for the nonce too: 401 with WWW-Authenticate DPoP error="use_dpop_nonce"', async () => {
        now = Date.now();
        const nonce = (await obtain()).headers['dpop-nonce'] as string;
        const token = ((await obtain(nonce)).json() as TokenAnswer).access_token;
        const without = await app.request({
            method: 'GET', url: '/clients/@me', as: `DPoP ${token}`, headers: { dpop: await dpopProof(key, { htm: 'GET', htu: CLIENT_ME, accessToken: token }) },
        });
        expect(without.statusCode).toBe(401);
        expect(without.headers['www-authenticate']).toMatch(/error="use_dpop_nonce"/);
        expect(without.headers['dpop-nonce']).toBe(nonce);
        const withNonce = await app.request({
            method: 'GET', url: '/clients/@me', as: `DPoP ${token}`, headers: { dpop: await dpopProof(key, { htm: 'GET', htu: CLIENT_ME, accessToken: token, nonce }) },
        });
        expect(withNonce.statusCode, withNonce.body).toBe(200);
    });
});
