import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { insertAuthorizationCode, pkcePair } from '../../test/authorization-codes.js';
import { describeEachDialect } from '../../test/databases.js';
import { createClient, createUser } from '../../test/identities.js';
import { login } from '../../test/sessions.js';

type TokenAnswer = { access_token: string; refresh_token: string; id_token?: string; scope: string };
const CB = 'https://rp.example.com/cb';

/** Every value of a claims object, nested ones included: none may be null (OpenID Connect Core §5.3.2, §2). */
function hasNull(value: unknown): boolean {
    if (value === null) return true;
    if (typeof value !== 'object') return false;
    return Object.values(value as Record<string, unknown>).some(hasNull);
}

describeEachDialect('ID token claims and GET/POST /userinfo (OpenID Connect Core §2, §5.3)', (dialect) => {
    const app = useTestApp(dialect, { publicUrl: 'https://id.example.com' });
    let realmId: string;
    let rp: { id: string };
    let dana: Awaited<ReturnType<typeof createUser>>;
    let eve: Awaited<ReturnType<typeof createUser>>;
    beforeAll(async () => {
        realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'oidc-realm' } }, 201)).data.id;
        rp = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'rp', realmId, redirectUri: CB } }, 201)).data;
        dana = await createUser(app, realmId, 'dana', { email: 'dana@example.com', emailVerified: true, firstName: 'Dana', lastName: 'Scully', displayName: 'D' });
        // no email, no names: their claims are absent, never null
        eve = await createUser(app, realmId, 'eve');
    });

    /** a code minted for the user's signed-in session and redeemed by the public client */
    const signInThrough = async (scope: string, user = dana, nonce: string | null = 'n-0S6_WzA2Mj') => {
        const signedIn = await login(app, realmId, user.name, user.password);
        const authTime = new Date(Date.now() - 30_000);
        const pkce = pkcePair();
        const code = await insertAuthorizationCode(app, {
            realmId, clientId: rp.id, userId: user.id, sessionId: signedIn.sessionId, redirectUri: CB, scope, nonce, codeChallenge: pkce.challenge, authTime,
        });
        const response = await app.request({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: 'authorization_code', code, client_id: rp.id, redirect_uri: CB, code_verifier: pkce.verifier },
        });
        expect(response.statusCode, response.body).toBe(200);
        return { tokens: response.json() as TokenAnswer, authTime };
    };
    const userinfo = (authorization: string | undefined, method: 'GET' | 'POST' = 'GET', payload?: string) => app.request({
        method, url: '/userinfo', as: null,
        headers: { ...(authorization ? { authorization } : {}), ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(payload !== undefined ? { payload } : {}),
    });

    it('signs an ID token that verifies against the realm JWKS with nonce, at_hash, sid, auth_time, azp and the released claims', async () => {
        const { tokens, authTime } = await signInThrough('openid profile email');
        const jwks = (await app.request({ method: 'GET', url: '/realms/oidc-realm/jwks', as: null })).json() as JSONWebKeySet;
        const { payload, protectedHeader } = await jwtVerify(tokens.id_token!, createLocalJWKSet(jwks), {
            issuer: 'https://id.example.com/realms/oidc-realm', audience: rp.id,
        });
        expect(protectedHeader.alg).toBe('RS256');
        const digest = createHash('sha256').update(tokens.access_token).digest();
        expect(payload).toMatchObject({
            sub: dana.id, aud: rp.id, azp: rp.id, kind: 'id_token', nonce: 'n-0S6_WzA2Mj',
            sid: decodeJwt(tokens.access_token).session_id, auth_time: Math.floor(authTime.getTime() / 1000),
            at_hash: digest.subarray(0, 16).toString('base64url'),
            preferred_username: 'dana', given_name: 'Dana', family_name: 'Scully', nickname: 'D', email: 'dana@example.com', email_verified: true,
        });
        expect(payload.exp! - payload.iat!).toBe(900);
        expect(hasNull(payload)).toBe(false);
    });

    it('releases claims by scope only, omits what is unknown, and sends no nonce that was not asked for', async () => {
        const bare = decodeJwt((await signInThrough('openid', dana, null)).tokens.id_token!);
        expect(bare.nonce).toBeUndefined();
        for (const claim of ['preferred_username', 'email', 'email_verified', 'given_name']) expect(bare[claim]).toBeUndefined();
        // `identity` keeps releasing the profile, as before the OpenID Connect scopes existed
        const identity = decodeJwt((await signInThrough('openid identity')).tokens.id_token!);
        expect(identity).toMatchObject({ preferred_username: 'dana', given_name: 'Dana' });
        expect(identity.email).toBeUndefined();
        const empty = decodeJwt((await signInThrough('openid profile email', eve)).tokens.id_token!);
        expect(empty.preferred_username).toBe('eve');
        for (const claim of ['email', 'email_verified', 'given_name', 'family_name', 'name', 'nickname']) expect(claim in empty).toBe(false);
        expect(hasNull(empty)).toBe(false);
        // no ID token without openid
        expect((await signInThrough('profile')).tokens.id_token).toBeUndefined();
    });

    it('answers /userinfo by GET and POST with sub and the claims of the token\'s scope, never cached', async () => {
        const { tokens } = await signInThrough('openid profile email');
        const bearer = `Bearer ${tokens.access_token}`;
        const expected = {
            sub: dana.id, preferred_username: 'dana', given_name: 'Dana', family_name: 'Scully', name: 'D', nickname: 'D',
            email: 'dana@example.com', email_verified: true, updated_at: expect.any(Number),
        };
        const got = await userinfo(bearer);
        expect(got.statusCode, got.body).toBe(200);
        expect(got.headers['cache-control']).toBe('no-store');
        expect(got.json()).toEqual(expected);
        const posted = await userinfo(bearer, 'POST');
        expect(posted.json()).toEqual(expected);
        // RFC 6750 §2.2: the form-encoded body parameter
        const inBody = await userinfo(undefined, 'POST', `access_token=${tokens.access_token}`);
        expect(inBody.statusCode, inBody.body).toBe(200);
        expect(inBody.json()).toEqual(expected);

        expect((await userinfo(`Bearer ${(await signInThrough('openid')).tokens.access_token}`)).json()).toEqual({ sub: dana.id });
        expect((await userinfo(`Bearer ${(await signInThrough('openid email')).tokens.access_token}`)).json())
            .toEqual({ sub: dana.id, email: 'dana@example.com', email_verified: true });
        expect((await userinfo(`Bearer ${(await signInThrough('openid profile email', eve)).tokens.access_token}`)).json())
            .toEqual({ sub: eve.id, preferred_username: 'eve', updated_at: expect.any(Number) });
    });

    it('refuses what is not a user\'s access token with openid: 401 invalid_token or 403 insufficient_scope, with the RFC 6750 challenge', async () => {
        const { tokens } = await signInThrough('openid profile');
        const expectChallenge = (response: Awaited<ReturnType<typeof userinfo>>, status: number, error?: string) => {
            expect(response.statusCode, response.body).toBe(status);
            expect(response.headers['cache-control']).toBe('no-store');
            const challenge = response.headers['www-authenticate'] as string;
            expect(challenge).toMatch(/^Bearer /);
            if (error) expect(challenge).toContain(`error="${error}"`);
            else expect(challenge).not.toContain('error=');
        };
        expectChallenge(await userinfo(`Bearer ${tokens.refresh_token}`), 401, 'invalid_token');
        expectChallenge(await userinfo(`Bearer ${tokens.id_token}`), 401, 'invalid_token');
        expectChallenge(await userinfo('Bearer not.a.token'), 401, 'invalid_token');
        expectChallenge(await userinfo(dana.header), 401, 'invalid_token');
        expectChallenge(await userinfo(undefined), 401);
        // a token issued without openid (the password grant without a client: scope global)
        const plain = await login(app, realmId, dana.name, dana.password);
        const insufficient = await userinfo(plain.bearer);
        expectChallenge(insufficient, 403, 'insufficient_scope');
        expect(insufficient.headers['www-authenticate']).toContain('scope="openid"');
        // a client's own token names no user, openid or not
        const service = await createClient(app, realmId, 'service');
        const cc = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'client_credentials', scope: 'openid' }, headers: { authorization: service.header } });
        expect(cc.statusCode, cc.body).toBe(200);
        expectChallenge(await userinfo(`Bearer ${(cc.json() as TokenAnswer).access_token}`), 401, 'invalid_token');
        // RFC 6750 §2: one method per request; §2.3 (the query string) is not offered
        const twice = await userinfo(`Bearer ${tokens.access_token}`, 'POST', `access_token=${tokens.access_token}`);
        expectChallenge(twice, 400, 'invalid_request');
        const inQuery = await app.request({ method: 'GET', url: `/userinfo?access_token=${tokens.access_token}`, as: null });
        expectChallenge(inQuery, 400, 'invalid_request');
        const inJson = await app.request({ method: 'POST', url: '/userinfo', as: null, payload: { access_token: tokens.access_token } });
        expectChallenge(inJson, 400, 'invalid_request');
        // a revoked session ends its access token here as everywhere (spec States)
        await app.deps.sessions.revoke(app.deps.db, decodeJwt(tokens.access_token).session_id as string);
        expectChallenge(await userinfo(`Bearer ${tokens.access_token}`), 401, 'invalid_token');
    });
});
