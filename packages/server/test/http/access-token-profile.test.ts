import { PermissionName, RealmScope, TOKEN_EXCHANGE_GRANT_TYPE } from '@realmgate/core';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { browserWorld, type BrowserWorld } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { createClient, grantDirect } from '../identities.js';
import { login } from '../sessions.js';
import type { SigningAlgorithm } from '../../src/keys/material.js';
import { signJws } from '../../src/tokens/jws.js';

/*
 * JWT access tokens per RFC 9068: `typ: at+jwt` and the §2.2 claims, `aud` the requested resource
 * (RFC 8707) or the realm's `defaultAudience` (its issuer when unset); every verifier tells an
 * access token from a refresh or ID token by `typ` and `kind`, and still accepts an access token
 * signed before, typed `JWT`, until it expires.
 */
const API = 'https://api.example.com/';
const DEFAULT_AUDIENCE = 'https://resources.example.com/';

describeEachDialect('JWT access tokens (RFC 9068)', (dialect) => {
    const app = useTestApp(dialect);
    let world: BrowserWorld;
    let service: Awaited<ReturnType<typeof createClient>>;
    let web: Awaited<ReturnType<typeof createClient>>;
    let stranger: BrowserWorld;
    beforeAll(async () => {
        world = await browserWorld(app);
        stranger = await browserWorld(app);
        await createClient(app, world.realmId, undefined, { audience: API });
        service = await createClient(app, world.realmId);
        web = await createClient(app, world.realmId, undefined, { redirectUri: 'https://web.example/cb' });
    });

    const token = async (payload: Record<string, string>) => {
        const response = await app.request({
            method: 'POST', url: '/token', as: null, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(payload).toString(),
        });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as { access_token: string; refresh_token?: string; id_token?: string };
    };
    const clientCredentials = (extra: Record<string, string> = {}) => token({ grant_type: 'client_credentials', client_id: service.id, client_secret: service.secret, ...extra });
    /** an API route as the token's subject: its own record */
    const asBearer = (accessToken: string) => app.request({
        method: 'GET', url: decodeJwt(accessToken).sub_kind === 'client' ? '/clients/@me' : '/users/@me', as: `Bearer ${accessToken}`,
    });
    const introspect = async (tokenValue: string) => (await app.request({
        method: 'POST', url: '/token/introspect', as: service.header, payload: { token: tokenValue },
    })).json() as Record<string, unknown>;
    /** a token signed by the realm's active key with the header `typ` and the claims given */
    const forge = async (realmId: string, claims: Record<string, unknown>, typ: string) => {
        const key = (await app.deps.keys.activeSigningKey(app.deps.db, realmId))!;
        const privateKey = (await app.deps.keys.privateKeyFor(app.deps.db, realmId, key.kid))!;
        return signJws(key.algorithm as SigningAlgorithm, key.kid, claims, privateKey, typ);
    };

    it('an access token is typed at+jwt and carries iss, exp, aud, sub, client_id, iat and jti (RFC 9068 §2.1, §2.2)', async () => {
        const issued = await clientCredentials();
        expect(decodeProtectedHeader(issued.access_token).typ).toBe('at+jwt');
        const claims = decodeJwt(issued.access_token);
        expect(claims).toMatchObject({ iss: `${app.deps.config.publicUrl}/realms/${world.realmName}`, sub: service.id, client_id: service.id, kind: 'access_token' });
        // no defaultAudience: the realm's issuer stands for every resource server of the realm
        expect(claims.aud).toBe(claims.iss);
        expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
        expect(claims.exp! - claims.iat!).toBe(app.deps.config.tokenAccessMaxAge);
        // every access token has its own identifier
        expect(decodeJwt((await clientCredentials()).access_token).jti).not.toBe(claims.jti);
        // a refresh token and an ID token keep the generic type
        const user = await token({ grant_type: 'password', username: world.user.name, password: world.user.password, realm_id: world.realmId, client_id: web.id, client_secret: web.secret, scope: 'openid' });
        expect(decodeProtectedHeader(user.refresh_token!).typ).toBe('JWT');
        expect(decodeProtectedHeader(user.id_token!).typ).toBe('JWT');
        expect(decodeJwt(user.access_token)).toMatchObject({ sub: world.user.id, client_id: web.id, aud: claims.iss });
    });

    it('the realm\'s defaultAudience is the aud of a token narrowed to no resource; a resource still narrows it', async () => {
        const realm = await browserWorld(app);
        const worker = await createClient(app, realm.realmId);
        await createClient(app, realm.realmId, undefined, { audience: API });
        const updated = await app.json<{ data: { defaultAudience: string | null } }>({ method: 'POST', url: `/realms/${realm.realmId}`, payload: { defaultAudience: DEFAULT_AUDIENCE } }, 200);
        expect(updated.data.defaultAudience).toBe(DEFAULT_AUDIENCE);
        const grant = (extra: Record<string, string> = {}) => token({ grant_type: 'client_credentials', client_id: worker.id, client_secret: worker.secret, ...extra });
        const plain = await grant();
        expect(decodeJwt(plain.access_token).aud).toBe(DEFAULT_AUDIENCE);
        expect(decodeJwt((await grant({ resource: API })).access_token).aud).toBe(API);
        // realm isolation: a client of another realm learns nothing about the token
        expect(await introspect(plain.access_token)).toEqual({ active: false });
        // back to null: the issuer again; another realm never saw the setting
        await app.json({ method: 'POST', url: `/realms/${realm.realmId}`, payload: { defaultAudience: null } }, 200);
        const reset = decodeJwt((await grant()).access_token);
        expect(reset.aud).toBe(reset.iss);
        expect(decodeJwt((await clientCredentials()).access_token).aud).toBe(`${app.deps.config.publicUrl}/realms/${world.realmName}`);
    });

    it('a defaultAudience must be an absolute URI without a fragment: 400 with issues, nothing written', async () => {
        for (const value of ['relative/path', 'https://resources.example.com/#part', 'not a uri', 42]) {
            const refused = await app.request({ method: 'POST', url: `/realms/${stranger.realmId}`, payload: { defaultAudience: value } });
            expect(refused.statusCode, refused.body).toBe(400);
            expect((refused.json() as { issues: { path: string[] }[] }).issues.some((issue) => issue.path.includes('defaultAudience'))).toBe(true);
        }
        const created = await app.request({ method: 'POST', url: '/realms', payload: { name: `aud-${Date.now()}`, defaultAudience: 'https://x.example/#f' } });
        expect(created.statusCode, created.body).toBe(400);
        const row = await app.json<{ data: { defaultAudience: string | null } }>({ method: 'GET', url: `/realms/${stranger.realmId}` });
        expect(row.data.defaultAudience).toBeNull();
    });

    it('a realm\'s defaultAudience is set only by who may update that realm: a user of another realm is refused', async () => {
        const outsider = await login(app, stranger.realmId, stranger.user.name, stranger.user.password);
        const refused = await app.request({ method: 'POST', url: `/realms/${world.realmId}`, payload: { defaultAudience: DEFAULT_AUDIENCE }, as: outsider.bearer });
        expect([403, 404]).toContain(refused.statusCode);
        const row = await app.json<{ data: { defaultAudience: string | null } }>({ method: 'GET', url: `/realms/${world.realmId}` });
        expect(row.data.defaultAudience).toBeNull();
    });

    it('a refresh token or an ID token is never accepted as an access token, nor a token whose typ and kind disagree', async () => {
        const user = await token({ grant_type: 'password', username: world.user.name, password: world.user.password, realm_id: world.realmId, client_id: web.id, client_secret: web.secret, scope: 'openid' });
        expect((await asBearer(user.access_token)).statusCode).toBe(200);
        for (const presented of [user.refresh_token!, user.id_token!]) {
            const refused = await asBearer(presented);
            expect(refused.statusCode, refused.body).toBe(401);
        }
        // signed by the realm's own key, yet typed as what it is not
        const claims = decodeJwt(user.access_token);
        const refreshTyped = await forge(world.realmId, { ...decodeJwt(user.refresh_token!) }, 'at+jwt');
        const accessUntyped = await forge(world.realmId, { ...claims, kind: 'refresh_token' }, 'application/at+jwt');
        for (const presented of [refreshTyped, accessUntyped]) {
            expect((await asBearer(presented)).statusCode).toBe(401);
            expect(await introspect(presented)).toEqual({ active: false });
        }
        const refreshed = await app.request({
            method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: refreshTyped, client_id: web.id, client_secret: web.secret },
        });
        expect(refreshed.statusCode, refreshed.body).toBe(400);
        expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
        // introspection tells the kinds apart for a resource server that introspects
        expect(await introspect(user.refresh_token!)).toMatchObject({ active: true, kind: 'refresh_token' });
        expect(await introspect(user.access_token)).toMatchObject({ active: true, kind: 'access_token' });
    });

    it('an access token signed before RFC 9068 (typed JWT, no aud) verifies until it expires', async () => {
        const current = decodeJwt((await clientCredentials()).access_token);
        const { aud: _aud, ...legacy } = current;
        const legacyToken = await forge(world.realmId, legacy, 'JWT');
        expect((await asBearer(legacyToken)).statusCode).toBe(200);
        const answer = await introspect(legacyToken);
        expect(answer).toMatchObject({ active: true, sub: service.id, kind: 'access_token', jti: current.jti });
        expect(answer.aud).toBeUndefined();
        const expired = await forge(world.realmId, { ...legacy, iat: current.iat! - 1000, exp: current.iat! - 100 }, 'JWT');
        expect((await asBearer(expired)).statusCode).toBe(401);
    });

    it('token exchange: a subject token carrying the realm\'s default audience is narrowed to no resource server', async () => {
        const realm = await browserWorld(app);
        await app.json({ method: 'POST', url: `/realms/${realm.realmId}`, payload: { defaultAudience: DEFAULT_AUDIENCE } }, 200);
        await createClient(app, realm.realmId, undefined, { audience: API });
        const exchanger = await createClient(app, realm.realmId);
        await grantDirect(app, { clientId: exchanger.id }, PermissionName.TOKEN_EXCHANGE, RealmScope.OWN);
        const subject = (await login(app, realm.realmId, realm.user.name, realm.user.password)).accessToken;
        expect(decodeJwt(subject).aud).toBe(DEFAULT_AUDIENCE);
        const exchanged = await token({
            grant_type: TOKEN_EXCHANGE_GRANT_TYPE, client_id: exchanger.id, client_secret: exchanger.secret,
            subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token', resource: API,
        });
        expect(decodeJwt(exchanged.access_token).aud).toBe(API);
        const kept = await token({
            grant_type: TOKEN_EXCHANGE_GRANT_TYPE, client_id: exchanger.id, client_secret: exchanger.secret,
            subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        });
        expect(decodeJwt(kept.access_token).aud).toBe(DEFAULT_AUDIENCE);
    });
});
