import { randomUUID } from 'node:crypto';
import {
    createAuthorizationEvaluator,
    isAuthorizationCatalogStaleError,
    type AuthorizationCatalog,
    type AuthorizationEvaluator,
    type AuthorizationGrant,
} from '@realmgate/access';
import { RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { toDbBool, toDbDate } from '../../src/db/values.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createRealm, globalId, grantRole } from '../grant-fixtures.js';

/*
 * A resource server as spec consumer rule 12 and "Upgrade order for catalog consumers" describe it:
 * its own client holds permission_read at ownOrNull (one client-permission row), it fetches
 * GET /authorization with its client_credentials token, introspects the end user's token for the
 * grants and decides with createAuthorizationEvaluator — and decides as the server does.
 */

type Client = { id: string; name: string };
type Introspection = { active: boolean; sub: string; sub_kind: 'user' | 'client'; realm_id: string; realm_name: string; permissions?: AuthorizationGrant[] };

describeEachDialect('catalog consumer: a resource server decides like the server', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    let other: string;
    let server: Client;
    let web: Client;
    let rival: Client;
    let bob: string;
    let carol: string;
    let foreignRole: string;

    const createClient = async (name: string, realmId: string, secret?: string) =>
        (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { name, realmId, ...(secret ? { secret } : {}) } }, 201)).data;
    const createUser = async (name: string, realmId: string) =>
        (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name, realmId, password: `${name}-password` } }, 201)).data.id;
    const bind = (kind: 'user' | 'client', holderId: string, permissionId: string, realmScope: RealmScope) =>
        app.json({
            method: 'POST', url: `/${kind}-permissions`, payload: { [`${kind}Id`]: holderId, permissionId, realmScope },
        }, 201);

    beforeAll(async () => {
        realm = await createRealm(app);
        other = await createRealm(app);
        server = await createClient('resource-server', realm, 'server-secret');
        web = await createClient('web', realm, 'web-secret');
        rival = await createClient('rival', realm, 'rival-secret');
        // spec "Upgrade order" step 3: one client-permission row, permission_read at ownOrNull
        await bind('client', server.id, await globalId(app, 'auth_permissions', 'permission_read'), RealmScope.OWN_OR_NULL);

        const alice = await createUser('alice', realm);
        bob = await createUser('bob', realm);
        carol = await createUser('carol', other);
        await bind('user', alice, await globalId(app, 'auth_permissions', 'user_read'), RealmScope.OWN);
        await bind('user', alice, await globalId(app, 'auth_permissions', 'role_read'), RealmScope.OWN_OR_NULL);
        foreignRole = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'foreign-role', realmId: other } }, 201)).data.id;
    });

    const token = async (payload: Record<string, unknown>, authorization: string | null = null): Promise<string> => {
        const response = await app.request({ method: 'POST', url: '/token', payload: { realm_id: realm, ...payload }, as: authorization });
        expect(response.statusCode, response.body).toBe(200);
        return (response.json() as { access_token: string }).access_token;
    };
    const serverToken = () => token({ grant_type: 'client_credentials' }, app.basic(server.id, 'server-secret'));
    const userToken = (username: string, client: Client, secret: string) =>
        token({ grant_type: 'password', username, password: `${username}-password`, client_id: client.id, client_secret: secret });
    const fetchCatalog = async (bearer: string): Promise<AuthorizationCatalog> => {
        const response = await app.request({ method: 'GET', url: '/authorization', as: `Bearer ${bearer}` });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as AuthorizationCatalog;
    };
    /** The resource server introspects with its own client credential (RFC 7662 §2.1). */
    const introspect = async (accessToken: string): Promise<Introspection> => {
        const response = await app.request({ method: 'POST', url: '/token/introspect', payload: { token: accessToken }, as: app.basic(server.id, 'server-secret') });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as Introspection;
    };
    /** Spec consumer rules 1, 2 and 5 of the upgrade order: refuse an inactive token, fail closed without a grant list. */
    const evaluatorFor = (catalog: AuthorizationCatalog, answer: Introspection): AuthorizationEvaluator => {
        if (!answer.active || !Array.isArray(answer.permissions)) throw new Error('fail closed');
        return createAuthorizationEvaluator({
            catalog,
            grants: answer.permissions,
            identity: {
                id: answer.sub, type: answer.sub_kind, realmId: answer.realm_id, realmName: answer.realm_name,
                clientId: answer.sub_kind === 'client' ? answer.sub : null,
            },
        });
    };

    it('fetches the catalog with the resource server\'s client_credentials token; the default own reach answers 403', async () => {
        const catalog = await fetchCatalog(await serverToken());
        expect(catalog.permissions.find((entry) => entry.name === 'user_read')!.policies).not.toBeNull();
        // spec consumer rule 12: own reach does not reach the global rows
        const narrow = await createClient('narrow-server', realm, 'narrow-secret');
        await bind('client', narrow.id, await globalId(app, 'auth_permissions', 'permission_read'), RealmScope.OWN);
        const bearer = await token({ grant_type: 'client_credentials' }, app.basic(narrow.id, 'narrow-secret'));
        expect((await app.request({ method: 'GET', url: '/authorization', as: `Bearer ${bearer}` })).statusCode).toBe(403);
        // a token without the global scope is evaluated without identity (consumer rule 12): system.default denies
        const scoped = await token({ grant_type: 'client_credentials', scope: 'openid' }, app.basic(server.id, 'server-secret'));
        expect((await app.request({ method: 'GET', url: '/authorization', as: `Bearer ${scoped}` })).statusCode).toBe(403);
    });

    it('a consumer built from the fetched catalog and the introspected grants decides as the server does', async () => {
        const catalog = await fetchCatalog(await serverToken());
        const aliceToken = await userToken('alice', web, 'web-secret');
        const consumer = evaluatorFor(catalog, await introspect(aliceToken));
        const cases: { name: string; realmMatch: string | null; url: string }[] = [
            { name: 'user_read', realmMatch: realm, url: `/users/${bob}` },
            { name: 'user_read', realmMatch: other, url: `/users/${carol}` },
            { name: 'role_read', realmMatch: null, url: `/roles/${await globalId(app, 'auth_roles', 'admin')}` },
            { name: 'role_read', realmMatch: other, url: `/roles/${foreignRole}` },
            { name: 'client_read', realmMatch: realm, url: `/clients/${web.id}` },
        ];
        const verdicts = [];
        for (const { name, realmMatch, url } of cases) {
            const served = await app.request({ method: 'GET', url, as: `Bearer ${aliceToken}` });
            expect([200, 403], served.body).toContain(served.statusCode);
            const decided = consumer.allows({ name, data: { realmMatch } });
            expect(decided, `${name} at ${realmMatch}`).toBe(served.statusCode === 200);
            verdicts.push(decided);
        }
        // both verdicts occur, so the comparison is not vacuous
        expect(verdicts).toEqual([true, false, true, false, false]);
    });

    it('narrows by the token\'s client (spec Authentication rule 8): a role owned by another client withholds the catalog', async () => {
        const dave = await createUser('dave', realm);
        const roleId = randomUUID();
        const now = toDbDate(dialect, new Date());
        await app.deps.db.insertInto('auth_roles').values({
            id: roleId, name: 'web-catalog-readers', display_name: null, description: null, built_in: toDbBool(dialect, false),
            client_id: web.id, realm_id: realm, created_at: now, updated_at: now,
        }).execute();
        await grantRole(app, roleId, await globalId(app, 'auth_permissions', 'permission_read'), RealmScope.OWN_OR_NULL);
        await app.deps.db.insertInto('auth_user_roles').values({ id: randomUUID(), user_id: dave, role_id: roleId, created_at: now, updated_at: now }).execute();

        const via = async (authorization: string) => (await app.request({ method: 'GET', url: '/authorization', as: authorization })).statusCode;
        expect(await via(`Bearer ${await userToken('dave', web, 'web-secret')}`)).toBe(200);
        expect(await via(`Bearer ${await userToken('dave', rival, 'rival-secret')}`)).toBe(403);
        // not narrowed: Basic
        expect(await via(app.basic(dave, 'dave-password'))).toBe(200);
    });

    it('a grant naming a definition the fetched copy lacks is stale; refetching fixes it', async () => {
        const serverBearer = await serverToken();
        const copy = await fetchCatalog(serverBearer);
        const invoice = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/permissions', payload: { name: 'invoice_read', realmId: realm } }, 201)).data.id;
        const erin = await createUser('erin', realm);
        await bind('user', erin, invoice, RealmScope.OWN);
        const answer = await introspect(await userToken('erin', web, 'web-secret'));
        expect(answer.permissions!.map((grant) => grant.name)).toContain('invoice_read');

        let stale: unknown;
        try {
            evaluatorFor(copy, answer);
        } catch (error) {
            stale = error;
        }
        expect(isAuthorizationCatalogStaleError(stale)).toBe(true);

        // spec consumer rule 4: refetch the catalog and rebuild with fresh introspection grants
        const fresh = evaluatorFor(await fetchCatalog(serverBearer), answer);
        expect(fresh.allows({ name: 'invoice_read', realmId: realm, data: { realmMatch: realm } })).toBe(true);
        expect(fresh.allows({ name: 'invoice_read', realmId: realm, data: { realmMatch: other } })).toBe(false);
    });
});
