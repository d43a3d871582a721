import { randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT, type JWTPayload } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';
import { toDbDate } from '../db/values.js';
import { createTokenService } from '../tokens/service.js';

type TokenAnswer = { access_token: string; refresh_token?: string; scope: string };

describeEachDialect('bearer authentication and the session lifecycle', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: { id: string; name: string };
    let realmB: { id: string; name: string };
    beforeAll(async () => {
        realmA = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'bearer-a' } }, 201)).data;
        realmB = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'bearer-b' } }, 201)).data;
    });

    const post = (payload: Record<string, unknown>) => app.request({ method: 'POST', url: '/token', payload, as: null });
    const login = async (payload: Record<string, unknown>): Promise<TokenAnswer> => {
        const response = await post({ grant_type: 'password', ...payload });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as TokenAnswer;
    };
    const refresh = (refreshToken: string) => post({ grant_type: 'refresh_token', refresh_token: refreshToken });
    const me = (accessToken: string) => app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${accessToken}` });
    const expect401 = async (accessToken: string, code: string) => {
        const response = await me(accessToken);
        expect(response.statusCode, response.body).toBe(401);
        expect(response.json()).toMatchObject({ code });
        expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="realmgate", error="invalid_token"/);
    };
    const createUser = async (realm: { id: string }, name: string) =>
        (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name, password: 'user-password', realmId: realm.id } }, 201)).data;
    /** a token signed with the realm's active key, claims as given */
    const forge = async (realmId: string, claims: JWTPayload) => {
        const active = await app.deps.keys.activeSigningKey(app.deps.db, realmId);
        const key = await app.deps.keys.privateKeyFor(app.deps.db, realmId, active!.kid);
        return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: active!.kid, typ: 'at+jwt' }).sign(key!);
    };

    it('rotates refresh tokens; a replayed one answers invalid_grant and revokes the session', async () => {
        const first = await login({ username: ADMIN.name, password: ADMIN.password });
        const rotated = await refresh(first.refresh_token!);
        expect(rotated.statusCode, rotated.body).toBe(200);
        expect(rotated.headers['cache-control']).toBe('no-store');
        const second = rotated.json() as TokenAnswer;
        expect(second.refresh_token).not.toBe(first.refresh_token);
        expect(decodeJwt(second.access_token).session_id).toBe(decodeJwt(first.access_token).session_id);
        expect((await me(second.access_token)).statusCode).toBe(200);
        const replay = await refresh(first.refresh_token!);
        expect(replay.statusCode).toBe(400);
        expect(replay.json()).toMatchObject({ error: 'invalid_grant', code: 'invalid_grant' });
        await expect401(second.access_token, 'inactive_token');
        expect((await refresh(second.refresh_token!)).json()).toMatchObject({ error: 'invalid_grant' });
        // an access token is no refresh token, and the reverse
        const other = await login({ username: ADMIN.name, password: ADMIN.password });
        expect((await refresh(other.access_token)).json()).toMatchObject({ error: 'invalid_grant' });
        await expect401(other.refresh_token!, 'invalid_token');
    });

    it('answers 401 on the very next request once the session row is revoked', async () => {
        const tokens = await login({ username: ADMIN.name, password: ADMIN.password });
        expect((await me(tokens.access_token)).statusCode).toBe(200);
        await app.deps.db.updateTable('auth_sessions').set({ revoked_at: toDbDate(dialect, new Date()) })
            .where('id', '=', decodeJwt(tokens.access_token).session_id as string).execute();
        await expect401(tokens.access_token, 'inactive_token');
        expect((await refresh(tokens.refresh_token!)).json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('refuses refresh for a deactivated user (invalid_grant) and its bearer (401)', async () => {
        const user = await createUser(realmA, 'leaver');
        const tokens = await login({ username: 'leaver', password: 'user-password', realm_name: realmA.name });
        expect((await me(tokens.access_token)).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { active: false } }, 200);
        expect((await refresh(tokens.refresh_token!)).json()).toMatchObject({ error: 'invalid_grant' });
        await expect401(tokens.access_token, 'inactive_token');
        expect((await post({ grant_type: 'password', username: 'leaver', password: 'user-password', realm_name: realmA.name })).json())
            .toMatchObject({ error: 'invalid_grant' });
    });

    it('refuses a token whose subject or session is not of the realm it names, and an expired one', async () => {
        const foreign = await createUser(realmB, 'foreigner');
        const tokens = await login({ username: 'foreigner', password: 'user-password', realm_id: realmB.id });
        const real = decodeJwt(tokens.access_token);
        const now = Math.floor(Date.now() / 1000);
        const claims = { ...real, iat: now, exp: now + 300 };
        // realm A's key vouching for realm B's subject and session
        await expect401(await forge(realmA.id, { ...claims, realm_id: realmA.id, realm_name: realmA.name }), 'invalid_token');
        // realm A's key on a token naming realm B
        await expect401(await forge(realmA.id, claims), 'invalid_token');
        // the right key and realm, but a session of another subject
        const admin = decodeJwt((await login({ username: ADMIN.name, password: ADMIN.password })).access_token);
        await expect401(await forge(realmB.id, { ...claims, session_id: admin.session_id }), 'invalid_token');
        await expect401(await forge(realmB.id, { ...claims, sub: randomUUID() }), 'invalid_token');
        await expect401(await forge(realmB.id, { ...claims, exp: now - 10 }), 'expired_token');
        expect((await me(await forge(realmB.id, claims))).statusCode).toBe(200);
        expect(real.sub).toBe(foreign.id);
        await expect401('not.a.token', 'invalid_token');
        await expect401(`${tokens.access_token.slice(0, -4)}AAAA`, 'invalid_token');
    });

    it('a refresh refused for its scope (wider or empty) leaves the token usable: the retry is no replay and the session lives', async () => {
        await app.json({ method: 'POST', url: '/clients', payload: { name: 'scoped-refresher' } }, 201);
        const first = await login({ username: ADMIN.name, password: ADMIN.password, client_id: 'scoped-refresher', scope: 'openid' });
        for (const scope of ['openid global', ' ']) {
            const refused = await post({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: 'scoped-refresher', scope });
            expect(refused.statusCode, refused.body).toBe(400);
            expect(refused.json()).toMatchObject({ error: 'invalid_scope' });
        }
        expect((await me(first.access_token)).statusCode).toBe(200);
        const retried = await post({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: 'scoped-refresher' });
        expect(retried.statusCode, retried.body).toBe(200);
        const second = retried.json() as TokenAnswer;
        expect(second.scope).toBe('openid');
        expect((await me(second.access_token)).statusCode).toBe(200);
        expect((await me(first.access_token)).statusCode).toBe(200);
    });

    it('answers inactive_token while the signing key is disabled, revives the token when it is enabled again, and ends it for good when the key is deleted', async () => {
        await createUser(realmA, 'keyholder');
        const tokens = await login({ username: 'keyholder', password: 'user-password', realm_id: realmA.id });
        const kid = (await app.deps.keys.activeSigningKey(app.deps.db, realmA.id))!.kid;
        await app.json({ method: 'POST', url: `/keys/${kid}`, payload: { status: 'disabled' } }, 200);
        await expect401(tokens.access_token, 'inactive_token');
        await app.json({ method: 'POST', url: `/keys/${kid}`, payload: { status: 'active' } }, 200);
        expect((await me(tokens.access_token)).statusCode).toBe(200);
        // a verified token is remembered, yet the key's mark is read on every use: deleting the key ends it
        await app.json({ method: 'DELETE', url: `/keys/${kid}?force=true` }, 200);
        await expect401(tokens.access_token, 'inactive_token');
        // a process that never saw the token tells it from a forgery by the key's tombstone
        const fresh = createTokenService(dialect, app.deps.keys, app.deps.tokens.settings);
        expect(await fresh.verifyAccessToken(app.deps.db, tokens.access_token)).toMatchObject({ ok: false, code: 'inactive_token' });
        expect(await fresh.inspect(app.deps.db, tokens.access_token)).toBeNull();
        const forged = `${tokens.access_token.slice(0, -4)}AAAA`;
        expect(await fresh.verifyAccessToken(app.deps.db, forged)).toMatchObject({ ok: false, code: 'invalid_token' });
        const renewed = await login({ username: 'keyholder', password: 'user-password', realm_id: realmA.id });
        expect((await me(renewed.access_token)).statusCode).toBe(200);
    });

    it('evaluates a bearer without scope global without identity data, yet keeps it identified for @me', async () => {
        await app.json({ method: 'POST', url: '/clients', payload: { name: 'console' } }, 201);
        const narrow = await login({ username: ADMIN.name, password: ADMIN.password, client_id: 'console', scope: 'openid' });
        expect(narrow.scope).toBe('openid');
        expect(decodeJwt(narrow.access_token)).toMatchObject({ scope: 'openid', client_id: expect.any(String) });
        expect((await me(narrow.access_token)).statusCode).toBe(200);
        const denied = await app.request({ method: 'POST', url: '/realms', payload: { name: 'never-made' }, as: `Bearer ${narrow.access_token}` });
        expect(denied.statusCode).toBe(403);
        const full = await login({ username: ADMIN.name, password: ADMIN.password, client_id: 'console' });
        expect(full.scope).toBe('global');
        const allowed = await app.request({ method: 'POST', url: '/realms', payload: { name: 'made-by-bearer' }, as: `Bearer ${full.access_token}` });
        expect(allowed.statusCode, allowed.body).toBe(201);
        // a refresh token issued to the console only refreshes for it
        expect((await refresh(full.refresh_token!)).json()).toMatchObject({ error: 'invalid_grant' });
        const own = await post({ grant_type: 'refresh_token', refresh_token: narrow.refresh_token!, client_id: 'console' });
        expect(own.statusCode, own.body).toBe(200);
    });
});
