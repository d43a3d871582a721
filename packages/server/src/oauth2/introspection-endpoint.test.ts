import { randomUUID } from 'node:crypto';
import type { RealmScope } from '@realmgate/core';
import { decodeJwt } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, useTestApp } from '../../test/app.js';
import { createActor, type GrantSpec } from '../../test/actors.js';
import { describeEachDialect } from '../../test/databases.js';
import { toDbBool, toDbDate } from '../db/values.js';
import type { SigningAlgorithm } from '../keys/material.js';
import { signJws } from '../tokens/jws.js';

type Client = { id: string; name: string };
type Grant = { name: string; realm_id: string | null; client_id: string | null; realm_scope: string; policies: string[] };
type Answer = Record<string, unknown> & { active: boolean; permissions?: Grant[] };

describeEachDialect('POST /token/introspect (RFC 7662)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: { id: string; name: string };
    let other: { id: string; name: string };
    let web: Client;
    let rival: Client;
    let spa: Client;
    let outsider: Client;
    let alice: string;
    let bob: string;
    let withPolicy: string;
    let expected: Grant[];
    beforeAll(async () => {
        // without default roles: the grants each answer lists are the ones set up here
        const createRealm = async (name: string) =>
            (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name, defaultRoleIds: [] } }, 201)).data;
        realm = await createRealm('introspect-realm');
        other = await createRealm('introspect-other');
        const createClient = async (payload: Record<string, unknown>, realmId = realm.id) =>
            (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { realmId, ...payload } }, 201)).data;
        web = await createClient({ name: 'web', secret: 'web-secret' });
        rival = await createClient({ name: 'rival', secret: 'rival-secret' });
        spa = await createClient({ name: 'spa' });
        outsider = await createClient({ name: 'outsider', secret: 'outsider-secret' }, other.id);
        alice = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'alice', password: 'alice-password', realmId: realm.id },
        }, 201)).data.id;
        bob = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'bob', password: 'bob-password', realmId: realm.id },
        }, 201)).data.id;

        const { db } = app.deps;
        const now = toDbDate(dialect, new Date());
        const stamps = { created_at: now, updated_at: now };
        await db.updateTable('auth_users').set({ email: 'alice@example.test', first_name: 'Alice', last_name: 'Liddell', display_name: 'Al' })
            .where('id', '=', alice).execute();
        const policy = async (type: string) => {
            const id = randomUUID();
            await db.insertInto('auth_policies').values({
                id, type, name: `policy-${id.slice(0, 8)}`, display_name: null, description: null, invert: toDbBool(dialect, false),
                config: '{}', parent_id: null, realm_id: realm.id, built_in: toDbBool(dialect, false), ...stamps,
            }).execute();
            return id;
        };
        withPolicy = await policy('realmMatch');
        const unprojectable = await policy('a-policy-type-from-the-future');
        const permission = async (name: string, clientId: string | null = null, realmId: string | null = realm.id) => {
            const id = randomUUID();
            await db.insertInto('auth_permissions').values({
                id, name, display_name: null, description: null, built_in: toDbBool(dialect, false), decision_strategy: 'unanimous',
                client_id: clientId, realm_id: realmId, ...stamps,
            }).execute();
            return id;
        };
        const role = async (clientId: string | null) => {
            const id = randomUUID();
            await db.insertInto('auth_roles').values({
                id, name: `role-${id.slice(0, 8)}`, display_name: null, description: null, built_in: toDbBool(dialect, false),
                client_id: clientId, realm_id: realm.id, ...stamps,
            }).execute();
            await db.insertInto('auth_user_roles').values({ id: randomUUID(), user_id: alice, role_id: id, ...stamps }).execute();
            return id;
        };
        const viaRole = (roleId: string, permissionId: string, realmScope: RealmScope, policyId: string | null = null) =>
            db.insertInto('auth_role_permissions').values({
                id: randomUUID(), role_id: roleId, permission_id: permissionId, realm_scope: realmScope, policy_id: policyId, ...stamps,
            }).execute();
        const direct = (permissionId: string, realmScope: RealmScope, policyId: string | null = null) =>
            db.insertInto('auth_user_permissions').values({
                id: randomUUID(), user_id: alice, permission_id: permissionId, realm_scope: realmScope, policy_id: policyId, ...stamps,
            }).execute();

        const reports = await permission('reports_read');
        const webOwned = await permission('web_feature', web.id);
        const rivalOwned = await permission('rival_feature', rival.id);
        const member = await role(null);
        const rivalRole = await role(rival.id);
        await viaRole(member, reports, 'any');
        await direct(reports, 'own', withPolicy);
        await direct(webOwned, 'ownOrNull');
        // spec grant rule 2: absent through web's token — another client's permission, and a
        // role owned by another client with everything it carries
        await direct(rivalOwned, 'own');
        await viaRole(rivalRole, reports, 'own');
        // spec grant rule 3: a junction tree the catalog cannot carry drops the grant
        await viaRole(await role(null), reports, 'any', unprojectable);
        app.deps.catalog.invalidate();
        expected = [
            { name: 'reports_read', realm_id: realm.id, client_id: null, realm_scope: 'own', policies: [withPolicy] },
            { name: 'web_feature', realm_id: realm.id, client_id: web.id, realm_scope: 'ownOrNull', policies: [] },
            { name: 'reports_read', realm_id: realm.id, client_id: null, realm_scope: 'any', policies: [] },
        ];
    });

    const issue = async (payload: Record<string, unknown>): Promise<{ access_token: string; refresh_token?: string }> => {
        const response = await app.request({ method: 'POST', url: '/token', payload, as: null });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as { access_token: string; refresh_token?: string };
    };
    const aliceViaWeb = () => issue({
        grant_type: 'password', username: 'alice', password: 'alice-password', realm_id: realm.id, client_id: web.id, client_secret: 'web-secret',
    });
    const introspect = (payload: Record<string, unknown>, authorization: string | null = app.basic(web.id, 'web-secret'), url = '/token/introspect') =>
        app.request({ method: 'POST', url, payload, as: authorization });
    const answerOf = async (payload: Record<string, unknown>, authorization?: string | null): Promise<Answer> => {
        const response = await introspect(payload, authorization);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('no-store');
        return response.json() as Answer;
    };
    const byName = (grants: Grant[] = []) => [...grants].sort((a, b) => `${a.name}${a.realm_scope}`.localeCompare(`${b.name}${b.realm_scope}`));

    it('reports an active access token: one entry per grant, narrowed by its client, the OpenID claims', async () => {
        const tokens = await aliceViaWeb();
        const answer = await answerOf({ token: tokens.access_token });
        const { permissions, updated_at: updatedAt, ...rest } = answer;
        const claims = decodeJwt(tokens.access_token);
        expect(rest).toEqual({
            active: true, sub: alice, sub_kind: 'user', realm_id: realm.id, realm_name: realm.name,
            email: 'alice@example.test', preferred_username: 'alice', given_name: 'Alice', family_name: 'Liddell', nickname: 'Al',
            // RFC 7662 §2.2 with the RFC 9068 §2.2 claims: the realm's issuer is the default audience
            iss: claims.iss, aud: claims.iss, kind: 'access_token', client_id: web.id, scope: claims.scope, jti: claims.jti, iat: claims.iat, exp: claims.exp,
        });
        expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
        expect(Number.isInteger(updatedAt)).toBe(true);
        expect(Math.abs((updatedAt as number) - Date.now() / 1000)).toBeLessThan(600);
        expect(byName(permissions)).toEqual(byName(expected));
        // the scope does not narrow the list (spec grant rule 4), the caller's form body works alike
        const form = await app.request({
            method: 'POST', url: '/token/introspect', payload: `token=${tokens.access_token}&token_type_hint=refresh_token`,
            headers: { 'content-type': 'application/x-www-form-urlencoded' }, as: app.basic(rival.id, 'rival-secret'),
        });
        expect(byName((form.json() as Answer).permissions)).toEqual(byName(expected));
    });

    it('writes a remembered grant list as JSON.stringify would, the same text on every answer, and a new grant at once', async () => {
        const tokens = await aliceViaWeb();
        const first = await introspect({ token: tokens.access_token });
        const second = await introspect({ token: tokens.access_token });
        expect(second.body).toBe(first.body);
        // the text of the object it parses to: the same members in the same order, nothing else
        expect(first.body).toBe(JSON.stringify(JSON.parse(first.body)));
        expect(Object.keys(JSON.parse(first.body) as object).slice(0, 2)).toEqual(['active', 'permissions']);
        expect(byName((JSON.parse(first.body) as Answer).permissions)).toEqual(byName(expected));
        // a grant written after the list was remembered is in the next answer (the bus empties the grants cache)
        const permission = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/permissions', payload: { name: `later_${randomUUID().slice(0, 8)}`, realmId: realm.id } }, 201)).data;
        await app.json({ method: 'POST', url: '/user-permissions', payload: { userId: alice, permissionId: permission.id } }, 201);
        const after = (await answerOf({ token: tokens.access_token })).permissions ?? [];
        expect(after.length).toBe(expected.length + 1);
        expect(after.some((grant) => grant.name.startsWith('later_'))).toBe(true);
        expect((await app.request({ method: 'DELETE', url: `/permissions/${permission.id}` })).statusCode).toBeLessThan(300);
    });

    it('omits unavailable claims instead of answering null', async () => {
        const tokens = await issue({ grant_type: 'password', username: 'bob', password: 'bob-password', realm_id: realm.id, client_id: web.id, client_secret: 'web-secret' });
        const response = await introspect({ token: tokens.access_token });
        expect(response.body).not.toContain('null');
        const answer = response.json() as Answer;
        expect(answer).toMatchObject({ active: true, preferred_username: 'bob', permissions: [] });
        for (const claim of ['email', 'given_name', 'family_name', 'nickname']) expect(answer).not.toHaveProperty(claim);
    });

    it('introspects a refresh token while its row and session live; an ended session names the subject without grants', async () => {
        const tokens = await aliceViaWeb();
        expect(await answerOf({ token: tokens.refresh_token! })).toMatchObject({ active: true, sub: alice });
        await app.deps.sessions.revoke(app.deps.db, decodeJwt(tokens.access_token).session_id as string);
        const named = { active: false, permissions: [], sub: alice, sub_kind: 'user', realm_id: realm.id, realm_name: realm.name };
        expect(await answerOf({ token: tokens.access_token })).toEqual(named);
        expect(await answerOf({ token: tokens.refresh_token! })).toEqual(named);
    });

    it('a deactivated subject or a disabled signing key makes the token inactive, still naming its subject', async () => {
        const carol = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'carol', password: 'carol-password', realmId: realm.id },
        }, 201)).data.id;
        const tokens = await issue({ grant_type: 'password', username: 'carol', password: 'carol-password', realm_id: realm.id, client_id: web.id, client_secret: 'web-secret' });
        const named = { active: false, permissions: [], sub: carol, sub_kind: 'user', realm_id: realm.id, realm_name: realm.name };
        const kid = (await app.deps.keys.activeSigningKey(app.deps.db, realm.id))!.kid;
        await app.deps.db.updateTable('auth_keys').set({ status: 'disabled' }).where('id', '=', kid).execute();
        expect(await answerOf({ token: tokens.access_token })).toEqual(named);
        await app.deps.db.updateTable('auth_keys').set({ status: 'active' }).where('id', '=', kid).execute();
        expect(await answerOf({ token: tokens.access_token })).toMatchObject({ active: true, sub: carol });
        await app.deps.db.updateTable('auth_users').set({ active: toDbBool(dialect, false) }).where('id', '=', carol).execute();
        expect(await answerOf({ token: tokens.access_token })).toEqual(named);
    });

    it('answers a bare inactive object for garbage, an id_token and a token of a realm the caller is not in', async () => {
        expect(await answerOf({ token: 'garbage' })).toEqual({ active: false });
        const tokens = await aliceViaWeb();
        const claims = decodeJwt(tokens.access_token);
        const key = (await app.deps.keys.activeSigningKey(app.deps.db, realm.id))!;
        const privateKey = (await app.deps.keys.privateKeyFor(app.deps.db, realm.id, key.kid))!;
        const idToken = signJws(key.algorithm as SigningAlgorithm, key.kid, { ...claims, kind: 'id_token' }, privateKey);
        expect(await answerOf({ token: idToken })).toEqual({ active: false });
        expect(await answerOf({ token: tokens.access_token }, app.basic(outsider.id, 'outsider-secret'))).toEqual({ active: false });
        // the master realm's administrator holds permission_read at any reach
        expect(await answerOf({ token: tokens.access_token }, app.basic(ADMIN.name, ADMIN.password))).toMatchObject({ active: true, sub: alice });
    });

    it('a caller of another realm learns about a token only when its permission_read grant reaches the token realm', async () => {
        const tokens = await aliceViaWeb();
        const master = (await app.deps.db.selectFrom('auth_realms').select('id').where('name', '=', 'master').executeTakeFirstOrThrow()).id;
        const cases: [GrantSpec[], boolean][] = [
            [[], false],
            [[{ permission: 'user_read', scope: 'any' }], false],
            [[{ permission: 'permission_read', scope: 'own' }], false],
            [[{ permission: 'permission_read', scope: 'ownOrNull' }], false],
            [[{ permission: 'permission_read', scope: 'any' }], true],
        ];
        for (const [grants, known] of cases) {
            const actor = await createActor(app, master, grants);
            const answer = await answerOf({ token: tokens.access_token }, actor.header);
            if (known) expect(answer, JSON.stringify(grants)).toMatchObject({ active: true, sub: alice });
            else expect(answer, JSON.stringify(grants)).toEqual({ active: false });
        }
    });

    it('authorizes the caller (RFC 7662 §4): subject, issuing client, realm client, session_read reach; anyone else learns nothing', async () => {
        const tokens = await aliceViaWeb();
        const master = (await app.deps.db.selectFrom('auth_realms').select('id').where('name', '=', 'master').executeTakeFirstOrThrow()).id;
        const clientBearer = async (client: Client, secret: string, realmId: string) =>
            `Bearer ${(await issue({ grant_type: 'client_credentials', realm_id: realmId, client_id: client.id, client_secret: secret })).access_token}`;
        const allowed: [string, string][] = [
            ['the token subject (Basic)', app.basic(alice, 'alice-password')],
            ['the token subject (its own bearer)', `Bearer ${tokens.access_token}`],
            ['the client it was issued to', app.basic(web.id, 'web-secret')],
            ['another client of its realm (Basic)', app.basic(rival.id, 'rival-secret')],
            ['another client of its realm (bearer)', await clientBearer(rival, 'rival-secret', realm.id)],
            ['session_read reaching its realm from its realm', (await createActor(app, realm.id, [{ permission: 'session_read', scope: 'own' }])).header],
            ['session_read reaching its realm from another', (await createActor(app, master, [{ permission: 'session_read', scope: 'any' }])).header],
        ];
        for (const [who, authorization] of allowed) {
            expect(await answerOf({ token: tokens.access_token }, authorization), who).toMatchObject({ active: true, sub: alice, email: 'alice@example.test' });
        }
        const refused: [string, string][] = [
            ['a plain user of its realm', app.basic(bob, 'bob-password')],
            ['a user of its realm with other grants', (await createActor(app, realm.id, [{ permission: 'user_read', scope: 'own' }])).header],
            ['a user of another realm', (await createActor(app, other.id, [])).header],
            ['session_read of another realm at own reach', (await createActor(app, other.id, [{ permission: 'session_read', scope: 'own' }])).header],
            ['a client of another realm (Basic)', app.basic(outsider.id, 'outsider-secret')],
            ['a client of another realm (bearer)', await clientBearer(outsider, 'outsider-secret', other.id)],
        ];
        for (const [who, authorization] of refused) {
            // indistinguishable from an unknown token
            expect(await answerOf({ token: tokens.access_token }, authorization), who).toEqual(await answerOf({ token: 'unknown' }, authorization));
            expect(await answerOf({ token: tokens.access_token }, authorization), who).toEqual({ active: false });
        }
    });

    it('accepts a resource server authenticating with its own bearer token (RFC 7662 §2.1), realm rules alike', async () => {
        const tokens = await aliceViaWeb();
        const bearerOf = async (client: Client, secret: string, realmId: string) =>
            `Bearer ${(await issue({ grant_type: 'client_credentials', realm_id: realmId, client_id: client.id, client_secret: secret })).access_token}`;
        expect(await answerOf({ token: tokens.access_token }, await bearerOf(rival, 'rival-secret', realm.id))).toMatchObject({ active: true, sub: alice });
        expect(await answerOf({ token: tokens.access_token }, await bearerOf(outsider, 'outsider-secret', other.id))).toEqual({ active: false });
        const forged = await introspect({ token: tokens.access_token }, 'Bearer not.a.token');
        expect(forged.statusCode, forged.body).toBe(401);
    });

    it('refuses a token in the query (400), an unauthenticated or public caller (401)', async () => {
        const tokens = await aliceViaWeb();
        const query = await introspect({ token: tokens.access_token }, app.basic(web.id, 'web-secret'), `/token/introspect?token=${tokens.access_token}`);
        expect(query.statusCode).toBe(400);
        expect(query.headers['cache-control']).toBe('no-store');
        expect(query.json()).toMatchObject({ error: 'invalid_request' });
        for (const [payload, authorization] of [
            [{ token: tokens.access_token }, null],
            [{ token: tokens.access_token, client_id: spa.id }, null],
            [{ token: tokens.access_token }, app.basic(web.id, 'wrong-secret')],
        ] as const) {
            const response = await introspect(payload, authorization);
            expect(response.statusCode, response.body).toBe(401);
            expect(response.headers['cache-control']).toBe('no-store');
            expect(response.json()).toMatchObject({ error: 'invalid_client' });
        }
    });

    it('GET /sessions/@me/introspect: the own bearer token narrowed by its client; Basic unnarrowed', async () => {
        const tokens = await aliceViaWeb();
        const self = await app.request({ method: 'GET', url: '/sessions/@me/introspect', as: `Bearer ${tokens.access_token}` });
        expect(self.statusCode, self.body).toBe(200);
        expect(self.headers['cache-control']).toBe('no-store');
        const answer = self.json() as Answer;
        expect(answer).toMatchObject({ active: true, sub: alice, preferred_username: 'alice' });
        expect(byName(answer.permissions)).toEqual(byName(expected));
        const basic = await app.request({ method: 'GET', url: '/sessions/@me/introspect', as: app.basic(alice, 'alice-password') });
        expect(basic.statusCode, basic.body).toBe(200);
        const names = (basic.json() as Answer).permissions!.map((grant) => grant.name).sort();
        expect(names).toEqual(['reports_read', 'reports_read', 'reports_read', 'rival_feature', 'web_feature']);
        expect((await app.request({ method: 'GET', url: '/sessions/@me/introspect', as: null })).statusCode).toBe(401);
    });
});
