import { decodeJwt } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { authorizeParams, browserWorld, codeRow, type BrowserWorld } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { createClient } from '../identities.js';
import { login } from '../sessions.js';

/*
 * Resource indicators (RFC 8707): `resource` at /authorize is kept on the code; at /token
 * (authorization code, refresh token, client_credentials) it narrows the access token's `aud` to a
 * resource server of the realm — a client whose `audience` is the value, unique in its realm.
 */
const API = 'https://api.example.com/';
const REPORTS = 'https://reports.example.com/';

describeEachDialect('resource indicators (RFC 8707)', (dialect) => {
    const app = useTestApp(dialect);
    let world: BrowserWorld;
    let worker: Awaited<ReturnType<typeof createClient>>;
    let stranger: BrowserWorld;
    beforeAll(async () => {
        world = await browserWorld(app);
        stranger = await browserWorld(app);
        await createClient(app, world.realmId, undefined, { audience: API });
        await createClient(app, world.realmId, undefined, { audience: REPORTS });
        worker = await createClient(app, world.realmId);
        // a resource server of another realm: its audience names nothing in this one
        await createClient(app, stranger.realmId, undefined, { audience: 'https://stranger.example.com/' });
    });

    const token = (payload: Record<string, string>) => app.request({
        method: 'POST', url: '/token', as: null, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(payload).toString(),
    });
    const clientCredentials = (extra: Record<string, string> = {}) => token({ grant_type: 'client_credentials', client_id: worker.id, client_secret: worker.secret, ...extra });
    const expectInvalidTarget = (response: Awaited<ReturnType<typeof token>>) => {
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_target', code: 'invalid_target' });
    };
    /** a code minted through POST /authorize (the API form) by a user bearer */
    const mint = async (extra: Record<string, string> = {}) => {
        const user = await login(app, world.realmId, world.user.name, world.user.password);
        const { params, pair } = authorizeParams(world, extra);
        const answer = await app.request({ method: 'POST', url: '/authorize', as: user.bearer, payload: params });
        return { answer, verifier: pair.verifier };
    };
    const redeem = (code: string, verifier: string, extra: Record<string, string> = {}) => token({
        grant_type: 'authorization_code', code, code_verifier: verifier, client_id: world.clientId, redirect_uri: world.redirectUri, ...extra,
    });

    it('an audience is unique within a realm (409 on create and update), and free in another realm', async () => {
        const taken = await app.request({ method: 'POST', url: '/clients', payload: { name: 'api-twin', realmId: world.realmId, audience: API } });
        expect(taken.statusCode, taken.body).toBe(409);
        expect(taken.json()).toMatchObject({ code: 'entity_conflict' });
        const moved = await app.request({ method: 'POST', url: `/clients/${worker.id}`, payload: { audience: REPORTS } });
        expect(moved.statusCode, moved.body).toBe(409);
        const elsewhere = await app.request({ method: 'POST', url: '/clients', payload: { name: 'api-elsewhere', realmId: stranger.realmId, audience: API } });
        expect(elsewhere.statusCode, elsewhere.body).toBe(201);
        // a client keeps its own audience through an update
        const api = await app.json<{ data: { id: string }[] }>({ method: 'GET', url: `/clients?filter[realmId]=${world.realmId}&filter[audience]=${encodeURIComponent(API)}` });
        expect(api.data).toHaveLength(1);
        const kept = await app.request({ method: 'POST', url: `/clients/${api.data[0]!.id}`, payload: { audience: API, description: 'the API' } });
        expect(kept.statusCode, kept.body).toBe(200);
    });

    it('client_credentials: resource narrows aud to a resource server of the realm; without it the token names the realm\'s issuer (RFC 9068 §2.2)', async () => {
        const narrowed = await clientCredentials({ resource: API });
        expect(narrowed.statusCode, narrowed.body).toBe(200);
        expect(decodeJwt((narrowed.json() as { access_token: string }).access_token).aud).toBe(API);
        const plain = decodeJwt(((await clientCredentials()).json() as { access_token: string }).access_token);
        expect(plain.aud).toBe(plain.iss);
    });

    it('client_credentials: an unknown, malformed, inactive or other realm\'s resource answers invalid_target', async () => {
        expectInvalidTarget(await clientCredentials({ resource: 'https://unknown.example.com/' }));
        expectInvalidTarget(await clientCredentials({ resource: 'not a uri' }));
        expectInvalidTarget(await clientCredentials({ resource: `${API}#fragment` }));
        expectInvalidTarget(await clientCredentials({ resource: 'https://stranger.example.com/' }));
        const dormant = await createClient(app, world.realmId, undefined, { audience: 'https://dormant.example.com/', active: false });
        expect(dormant.id).toBeTruthy();
        expectInvalidTarget(await clientCredentials({ resource: 'https://dormant.example.com/' }));
    });

    it('a narrowed token still works at the API\'s bearer step and introspection reports its aud', async () => {
        const { access_token: accessToken } = (await clientCredentials({ resource: API })).json() as { access_token: string };
        expect((await app.request({ method: 'GET', url: '/clients/@me', as: `Bearer ${accessToken}` })).statusCode).toBe(200);
        const introspected = await app.request({
            method: 'POST', url: '/token/introspect', as: worker.header, headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ token: accessToken }).toString(),
        });
        expect(introspected.json()).toMatchObject({ active: true, aud: API, sub: worker.id });
    });

    it('/authorize keeps the resource on the code; /token issues for it, refuses another, and the refresh keeps it', async () => {
        const { answer, verifier } = await mint({ resource: API });
        expect(answer.statusCode, answer.body).toBe(200);
        const { code } = answer.json() as { code: string };
        expect((await codeRow(app, code))!.resource).toBe(API);
        // another resource server than the authorization request's: refused, and the code stays unspent
        expectInvalidTarget(await redeem(code, verifier, { resource: REPORTS }));
        expect((await codeRow(app, code))!.used_at).toBeNull();
        const redeemed = await redeem(code, verifier, { resource: API });
        expect(redeemed.statusCode, redeemed.body).toBe(200);
        const tokens = redeemed.json() as { access_token: string; refresh_token: string };
        expect(decodeJwt(tokens.access_token).aud).toBe(API);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${tokens.access_token}` })).statusCode).toBe(200);

        // RFC 8707 §2.2: the refresh grant stays within the original grant's resource
        expectInvalidTarget(await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: world.clientId, resource: REPORTS }));
        const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: world.clientId });
        expect(refreshed.statusCode, refreshed.body).toBe(200);
        expect(decodeJwt((refreshed.json() as { access_token: string }).access_token).aud).toBe(API);
    });

    it('a code without resource may be narrowed at /token; its refresh token stays unrestricted', async () => {
        const { answer, verifier } = await mint();
        const { code } = answer.json() as { code: string };
        expect((await codeRow(app, code))!.resource).toBeNull();
        const redeemed = await redeem(code, verifier, { resource: REPORTS });
        expect(redeemed.statusCode, redeemed.body).toBe(200);
        const tokens = redeemed.json() as { access_token: string; refresh_token: string };
        expect(decodeJwt(tokens.access_token).aud).toBe(REPORTS);
        const toApi = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: world.clientId, resource: API });
        expect(toApi.statusCode, toApi.body).toBe(200);
        const next = toApi.json() as { access_token: string; refresh_token: string };
        expect(decodeJwt(next.access_token).aud).toBe(API);
        const plain = await token({ grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: world.clientId });
        const unnarrowed = decodeJwt((plain.json() as { access_token: string }).access_token);
        expect(unnarrowed.aud).toBe(unnarrowed.iss);
    });

    it('/authorize answers an unknown, other realm\'s or repeated resource with invalid_target (the API form answers errors as JSON)', async () => {
        for (const resource of ['https://unknown.example.com/', 'https://stranger.example.com/']) {
            const { answer } = await mint({ resource });
            expect(answer.statusCode, answer.body).toBe(400);
            expect(answer.json()).toMatchObject({ error: 'invalid_target' });
        }
        const user = await login(app, world.realmId, world.user.name, world.user.password);
        const query = new URLSearchParams(authorizeParams(world).params);
        query.append('resource', API);
        query.append('resource', REPORTS);
        const repeated = await app.request({
            method: 'POST', url: '/authorize', as: user.bearer, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: query.toString(),
        });
        expect(repeated.statusCode, repeated.body).toBe(400);
        expect(repeated.json()).toMatchObject({ error: 'invalid_target' });
    });
});
