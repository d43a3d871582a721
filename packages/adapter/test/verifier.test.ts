import { randomUUID } from 'node:crypto';
import { basicAuth, createClient, decodeJwtPayload, passwordGrant, type RealmgateClient } from '@realmgate/client';
import { ErrorCode, RealmScope } from '@realmgate/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../server/test/app.js';
import { describeEachDialect } from '../../server/test/databases.js';
import { freePort } from '../../server/test/network.js';
import { createVerifier, type VerifierOptions } from '../src/index.js';
import type { SigningAlgorithm } from '../../server/src/keys/material.js';
import { signJws } from '../../server/src/tokens/jws.js';

/*
 * The framework-free verify() against the real server listening on a free port: the key of the
 * token's realm (spec Authentication 4), the introspection cache keyed by the token's digest, scope
 * checks, and failing closed when the catalog or the server is not there.
 */

const refusal = async (promise: Promise<unknown>) => promise.then(() => {
    throw new Error('expected a refusal');
}, (error: { statusCode: number; code: string; message: string }) => error);

describeEachDialect('adapter verify()', (dialect) => {
    let app: TestApp;
    let url: string;
    let admin: RealmgateClient;
    let realm: { id: string; name: string };
    let other: { id: string; name: string };
    let credentials: VerifierOptions['credentials'];
    let unprivileged: VerifierOptions['credentials'];
    let user: { id: string; name: string; password: string };

    beforeAll(async () => {
        const port = await freePort();
        url = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl: url });
        await app.app.listen({ port, host: '127.0.0.1' });
        admin = createClient({ baseUrl: url, auth: basicAuth(ADMIN.name, ADMIN.password) });
        const makeRealm = async () => {
            const name = `v-${randomUUID().slice(0, 8)}`;
            return { id: (await admin.postRealms({ body: { name } })).data.id as string, name };
        };
        realm = await makeRealm();
        other = await makeRealm();
        const makeClient = async (grant: boolean) => {
            const secret = `secret-${randomUUID()}`;
            const id = (await admin.postClients({ body: { name: `rs-${randomUUID().slice(0, 6)}`, realmId: realm.id, secret } })).data.id as string;
            if (grant) {
                const permissionRead = (await admin.getPermissions({ query: { filter: { name: 'permission_read', realmId: null } } })).data[0]!.id as string;
                await admin.postClientPermissions({ body: { clientId: id, permissionId: permissionRead, realmScope: RealmScope.OWN_OR_NULL } });
            }
            return { clientId: id, clientSecret: secret };
        };
        credentials = await makeClient(true);
        unprivileged = await makeClient(false);
        user = { id: '', name: `u-${randomUUID().slice(0, 6)}`, password: 'verifier-secret-1' };
        user.id = (await admin.postUsers({ body: { name: user.name, realmId: realm.id, password: user.password } })).data.id as string;
    });
    afterAll(async () => app?.dispose());

    /** DELETE /sessions/:id: the token's session is revoked (spec "token active" → inactive) */
    const endSession = async (token: string) => admin.deleteSessionsById({ params: { id: decodeJwtPayload(token).session_id as string } });
    const login = async () => passwordGrant(admin.withAuth(undefined), { username: user.name, password: user.password, realmId: realm.id });

    it('local mode: the key comes from the token\'s own realm; a token naming another realm is refused', async () => {
        const verifier = createVerifier({ baseUrl: url, mode: 'local', credentials });
        const { access_token: token } = await login();
        const auth = await verifier.verify(`Bearer ${token}`);
        expect(auth.identity).toEqual({ id: user.id, type: 'user', realmId: realm.id, realmName: realm.name, clientId: null });
        expect(auth.scopes).toContain('global');
        // the same kid looked up in another realm does not exist there
        const [header, payload, signature] = token.split('.');
        const moved = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), realm_id: other.id })).toString('base64url');
        expect(await refusal(verifier.verify(`Bearer ${header}.${moved}.${signature}`))).toMatchObject({ statusCode: 401, message: 'unknown signing key' });
    });

    it('local mode: a key is fetched once per realm and kid, and an unknown kid is not asked for again at once', async () => {
        const fetched: string[] = [];
        // the real fetch, observed
        const observed: typeof fetch = (input, init) => {
            fetched.push(new URL(String(input)).pathname);
            return fetch(input, init);
        };
        const verifier = createVerifier({ baseUrl: url, mode: 'local', credentials, client: createClient({ baseUrl: url, retry: false, fetch: observed }) });
        const { access_token: token } = await login();
        await verifier.verify(`Bearer ${token}`);
        await verifier.verify(`Bearer ${(await login()).access_token}`);
        expect(fetched).toHaveLength(1);
        const [header, payload, signature] = token.split('.');
        const forgedKid = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(header!, 'base64url').toString()), kid: randomUUID() })).toString('base64url');
        const forged = `Bearer ${forgedKid}.${payload}.${signature}`;
        expect(await refusal(verifier.verify(forged))).toMatchObject({ statusCode: 401, message: 'unknown signing key' });
        expect(await refusal(verifier.verify(forged))).toMatchObject({ statusCode: 401, message: 'unknown signing key' });
        expect(fetched).toHaveLength(2);
    });

    it('local mode remembers a verified token by its digest, never past its expiry, and a changed signature is checked anew', async () => {
        let now = Date.now();
        const verifier = createVerifier({ baseUrl: url, mode: 'local', credentials, now: () => now });
        const { access_token: token } = await login();
        await verifier.verify(`Bearer ${token}`);
        await expect(verifier.verify(`Bearer ${token}`)).resolves.toBeTruthy();
        const [header, payload, signature] = token.split('.');
        const flipped = `${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
        expect(await refusal(verifier.verify(`Bearer ${header}.${payload}.${flipped}`))).toMatchObject({ statusCode: 401 });
        const { exp } = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { exp: number };
        now = exp * 1000 + 1;
        expect(await refusal(verifier.verify(`Bearer ${token}`))).toMatchObject({ statusCode: 401, code: ErrorCode.EXPIRED_TOKEN });
    });

    it('local mode still accepts a token after its session ends (seen only at expiry); remote mode refuses it at once', async () => {
        const local = createVerifier({ baseUrl: url, mode: 'local', credentials });
        const remote = createVerifier({ baseUrl: url, mode: 'remote', credentials });
        const tokens = await login();
        await endSession(tokens.access_token);
        await expect(local.verify(`Bearer ${tokens.access_token}`)).resolves.toBeTruthy();
        expect(await refusal(remote.verify(`Bearer ${tokens.access_token}`))).toMatchObject({ statusCode: 401, code: ErrorCode.INACTIVE_TOKEN });
    });

    it('remote mode with a cache: an answer is kept for the window, keyed by the token\'s digest, then asked again', async () => {
        let now = Date.now();
        const verifier = createVerifier({ baseUrl: url, mode: 'remote', credentials, introspectionCacheSeconds: 30, now: () => now });
        const tokens = await login();
        await verifier.verify(`Bearer ${tokens.access_token}`);
        await endSession(tokens.access_token);
        await expect(verifier.verify(`Bearer ${tokens.access_token}`)).resolves.toBeTruthy();
        now += 31_000;
        expect(await refusal(verifier.verify(`Bearer ${tokens.access_token}`))).toMatchObject({ statusCode: 401 });
    });

    it('audience: a token narrowed to this resource server or to none is accepted, one for another is refused (RFC 8707), in both modes', async () => {
        const own = `https://rs-${randomUUID().slice(0, 6)}.example.com/`;
        const elsewhere = `https://rs-${randomUUID().slice(0, 6)}.example.com/`;
        await admin.postClientsById({ params: { id: credentials.clientId }, body: { audience: own } });
        const secret = `secret-${randomUUID()}`;
        await admin.postClients({ body: { name: `rs-${randomUUID().slice(0, 6)}`, realmId: realm.id, secret, audience: elsewhere } });
        const narrowed = async (resource: string | undefined) => (await fetch(`${url}/token`, {
            method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${unprivileged.clientId}:${unprivileged.clientSecret}`).toString('base64')}` },
            body: new URLSearchParams({ grant_type: 'client_credentials', ...(resource ? { resource } : {}) }),
        }).then((response) => response.json()) as { access_token: string }).access_token;
        for (const mode of ['local', 'remote'] as const) {
            const verifier = createVerifier({ baseUrl: url, mode, credentials, audience: own });
            expect((await verifier.verify(`Bearer ${await narrowed(own)}`)).identity.id).toBe(unprivileged.clientId);
            expect((await verifier.verify(`Bearer ${await narrowed(undefined)}`)).identity.id).toBe(unprivileged.clientId);
            expect(await refusal(verifier.verify(`Bearer ${await narrowed(elsewhere)}`))).toMatchObject({ statusCode: 401, message: 'the token is for another resource server' });
            // without the option every token of the realm is accepted, narrowed or not
            const unconfigured = createVerifier({ baseUrl: url, mode, credentials });
            expect((await unconfigured.verify(`Bearer ${await narrowed(elsewhere)}`)).identity.id).toBe(unprivileged.clientId);
        }
    });

    it('RFC 9068: a refresh token, an ID token or a token whose typ and kind disagree is never an access token, in both modes; an untyped access token signed before still is', async () => {
        const tokens = await login();
        const key = (await app.deps.keys.activeSigningKey(app.deps.db, realm.id))!;
        const privateKey = (await app.deps.keys.privateKeyFor(app.deps.db, realm.id, key.kid))!;
        const forge = (claims: Record<string, unknown>, typ: string) => signJws(key.algorithm as SigningAlgorithm, key.kid, claims, privateKey, typ);
        const access = decodeJwtPayload(tokens.access_token);
        expect(JSON.parse(Buffer.from(tokens.access_token.split('.')[0]!, 'base64url').toString()).typ).toBe('at+jwt');
        const idToken = forge({ ...access, kind: 'id_token', aud: 'some-client' }, 'JWT');
        const refreshTyped = forge({ ...decodeJwtPayload(tokens.refresh_token!) }, 'at+jwt');
        const accessUntyped = forge({ ...access }, 'jwt-of-another-kind');
        const { aud: _aud, ...legacy } = access;
        for (const mode of ['local', 'remote'] as const) {
            const verifier = createVerifier({ baseUrl: url, mode, credentials, audience: 'https://rs.example.com/' });
            expect((await verifier.verify(`Bearer ${tokens.access_token}`)).identity.id).toBe(user.id);
            for (const presented of [tokens.refresh_token!, idToken, refreshTyped, accessUntyped]) {
                expect(await refusal(verifier.verify(`Bearer ${presented}`)), mode).toMatchObject({ statusCode: 401 });
            }
            // typed JWT and naming no audience: signed before RFC 9068, good until it expires
            expect((await verifier.verify(`Bearer ${forge(legacy, 'JWT')}`)).identity.id).toBe(user.id);
        }
    });

    it('checks the scopes the resource server requires (spec consumer rule 12)', async () => {
        const verifier = createVerifier({ baseUrl: url, mode: 'local', credentials, requiredScopes: ['orders'] });
        const { access_token: token } = await login();
        expect(await refusal(verifier.verify(`Bearer ${token}`))).toMatchObject({ statusCode: 403, code: ErrorCode.PERMISSION_DENIED });
    });

    it('fails closed: a credential without permission_read gets no catalog, an unreachable server denies', async () => {
        const verifier = createVerifier({ baseUrl: url, mode: 'remote', credentials: unprivileged });
        const { access_token: token } = await login();
        const auth = await verifier.verify(`Bearer ${token}`);
        expect(await refusal(auth.preEvaluate({ name: 'user_read' }))).toMatchObject({ statusCode: 503 });
        const closedPort = await freePort();
        const nowhere = createVerifier({ baseUrl: `http://127.0.0.1:${closedPort}`, mode: 'remote', credentials });
        expect(await refusal(nowhere.verify(`Bearer ${token}`))).toMatchObject({ statusCode: 503 });
        const nowhereLocal = createVerifier({ baseUrl: `http://127.0.0.1:${closedPort}`, mode: 'local', credentials });
        expect(await refusal(nowhereLocal.verify(`Bearer ${token}`))).toMatchObject({ statusCode: 503 });
        expect(await refusal(nowhere.verify(undefined))).toMatchObject({ statusCode: 401 });
    });
});
