import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { globalId } from '../grant-fixtures.js';
import { login } from '../sessions.js';
import { isolationCases, type Action, type IsolationCase } from './isolation-cases.js';
import { realmState, stateChanges } from './realm-state.js';
import { buildRealmWorld, type Kind, type RealmWorld } from './realm-world.js';

/*
 * Realm isolation, generated (a standing part of npm test; spec "Realm reach values"): two realms
 * with a row of every kind; realm A's administrator (the built-in realm_admin role, by Basic and
 * by Bearer) and a client token of realm A (client_credentials, the same role) against every
 * collection and verb on realm B's rows. A leak is: a success on one of B's rows, one of B's names or ids in an answer that was
 * not in the request, a list that shows B's rows or whose total is not the rows it pages through,
 * or any change to B's rows, B's row counts or the bindings to them.
 */

type List = { data: unknown[]; meta: { total: number } };

/**
 * The statuses each action may answer: reads of another realm's row 403, as the existing isolation
 * suites assert, or 404. A PUT through realm A's mount is a create in A under B's id (409: the id is
 * taken) or names B's rows in its body (400: another realm than the route's); a create that names B's
 * rows may be refused as invalid (400). None of them may change anything of B's (checked after each).
 */
const EXPECTED: Record<Action, number[]> = {
    read: [403, 404], update: [403, 404], delete: [403, 404], special: [403, 404],
    replace: [400, 403, 404, 409], create: [400, 403, 404], list: [200], bulk: [200],
};

describeEachDialect('realm isolation, generated', (dialect) => {
    const app = useTestApp(dialect, { rateLimit: { userMax: 1e9, clientMax: 1e9, anonymousMax: 1e9 } });
    let a: RealmWorld;
    let b: RealmWorld;
    let before: Record<string, unknown>;
    let adminView: Record<string, string>;
    const callers: Record<string, string> = {};
    const relations: Partial<Record<Kind, string[]>> = {};
    let globalRole: string;
    let userRead: string;
    beforeAll(async () => {
        a = await buildRealmWorld(app, 'iso-a');
        b = await buildRealmWorld(app, 'iso-b');
        // realm B's rows that hang on global rows, which realm A's administrator does read
        globalRole = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'iso-global-role', realmId: null } }, 201)).data.id;
        userRead = await globalId(app, 'auth_permissions', 'user_read');
        const onGlobal = [
            await app.json<{ data: { id: string } }>({ method: 'POST', url: '/user-roles', payload: { userId: b.user.id, roleId: globalRole } }, 201),
            await app.json<{ data: { id: string } }>({ method: 'POST', url: '/role-permissions', payload: { roleId: b.roleId, permissionId: userRead } }, 201),
        ];
        b.ids['user-roles'].push(onGlobal[0]!.data.id);
        b.ids['role-permissions'].push(onGlobal[1]!.data.id);
        b.markers.push(...onGlobal.map((row) => row.data.id));
        for (const kind of Object.keys(b.ids) as Kind[]) {
            relations[kind] = (await app.json<{ data: { relations: string[] } }>({ method: 'GET', url: `/${kind}/@schema` }, 200)).data.relations;
        }
        const realmAdmin = await globalId(app, 'auth_roles', 'realm_admin');
        const password = 'realm-admin-password';
        const user = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: 'iso-a-admin', realmId: a.realmId, password } }, 201);
        await app.json({ method: 'POST', url: '/user-roles', payload: { userId: user.data.id, roleId: realmAdmin } }, 201);
        callers['realm administrator of A (Basic)'] = app.basic(user.data.id, password);
        callers['realm administrator of A (Bearer)'] = (await login(app, a.realmId, 'iso-a-admin', password)).bearer;
        const secret = 'iso-a-client-secret';
        const client = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'iso-a-service', realmId: a.realmId, secret, grantTypes: ['client_credentials'] } }, 201);
        await app.json({ method: 'POST', url: '/client-roles', payload: { clientId: client.data.id, roleId: realmAdmin } }, 201);
        const token = await app.json<{ access_token: string }>({ method: 'POST', url: '/token', as: app.basic(client.data.id, secret), payload: { grant_type: 'client_credentials' } }, 200);
        callers['client token of A'] = `Bearer ${token.access_token}`;
        before = await realmState(app, b);
        adminView = await adminReads(b);
    });

    /** realm B's rows as the bootstrap admin reads them, by collection and id */
    const adminReads = async (world: RealmWorld) => {
        const view: Record<string, string> = {};
        for (const [kind, ids] of Object.entries(world.ids)) {
            for (const id of ids) view[`${kind}/${id}`] = JSON.stringify((await app.json<{ data: unknown }>({ method: 'GET', url: `/${kind}/${id}` }, 200)).data);
        }
        return view;
    };

    /** every row the caller sees through `url`'s filters, paged 100 at a time */
    const pagedCount = async (url: string, as: string): Promise<number> => {
        const [path, query = ''] = url.split('?');
        const kept = query.split('&').filter((part) => part && !part.startsWith('page['));
        let rows = 0;
        for (let offset = 0; offset < 2_000; offset += 100) {
            requests += 1;
            const page = await app.json<List>({ method: 'GET', url: `${path}?${[...kept, 'page[limit]=100', `page[offset]=${offset}`].join('&')}`, as }, 200);
            rows += page.data.length;
            if (page.data.length < 100) break;
        }
        return rows;
    };

    /** list answers that show realm A's own rows: the callers do see what they may (the suite is not vacuous) */
    let listsShowingA = 0;
    let requests = 0;

    /** what is wrong with one answer, or nothing */
    const judge = async (check: IsolationCase, as: string): Promise<string | undefined> => {
        requests += 1;
        const response = await app.request({ method: check.method, url: check.url, as, ...(check.payload ? { payload: check.payload } : {}) });
        const status = response.statusCode;
        const sent = `${check.url} ${JSON.stringify(check.payload ?? {})}`;
        const shown = b.markers.filter((marker) => !sent.includes(marker) && response.body.includes(marker));
        if (shown.length > 0) return `LEAK: the answer ${status} shows realm B's ${shown.join(', ')}`;
        if (status >= 500) return `answered ${status}: ${response.body.slice(0, 200)}`;
        if (check.method !== 'GET') {
            const changed = stateChanges(before, await realmState(app, b));
            if (changed.length > 0) return `LEAK: answered ${status} and realm B's ${changed.join(', ')}`;
        }
        if (!EXPECTED[check.action].includes(status)) {
            return `${status >= 200 && status < 300 ? 'LEAK: ' : ''}answered ${status}, expected ${EXPECTED[check.action].join(' or ')}: ${response.body.slice(0, 200)}`;
        }
        if (check.action !== 'list') return undefined;
        if (a.markers.some((marker) => response.body.includes(marker))) listsShowingA += 1;
        const list = response.json() as List;
        if (check.empty && (list.data.length > 0 || list.meta.total !== 0)) return `LEAK: ${list.data.length} rows, total ${list.meta.total} where every row would be realm B's`;
        const rows = await pagedCount(check.url, as);
        if (list.meta.total !== rows) return `total ${list.meta.total}, yet the pages hold ${rows} rows`;
        return undefined;
    };

    it('lets realm A\'s administrator and client token reach none of realm B\'s rows, on every route, verb and list shape', async () => {
        const cases = [
            ...isolationCases(a, b, relations),
            // lists through the global rows B's bindings point to: A's administrator reads the global rows, never B's bindings
            ...[`/user-roles?filter[roleId]=${globalRole}&include=user,role`, `/role-permissions?filter[permissionId]=${userRead}&include=role,permission&page[limit]=100`,
                `/user-roles?filter[role.name]=iso-global-role`, `/role-permissions?filter[permission.name]=user_read&sort=-createdAt`]
                .map((url): IsolationCase => ({ label: `list ${url}`, action: 'list', method: 'GET', url })),
        ];
        const failures: string[] = [];
        const statuses = new Map<string, number>();
        let sent = 0;
        for (const [caller, as] of Object.entries(callers)) {
            for (const check of cases) {
                const failure = await judge(check, as);
                sent += 1;
                if (failure) failures.push(`${caller}: ${check.label}: ${failure}`);
                statuses.set(check.action, (statuses.get(check.action) ?? 0) + 1);
            }
        }
        const leaks = failures.filter((failure) => failure.includes('LEAK'));
        console.info(`realm isolation [${dialect}]: ${sent} cases (${cases.length} × ${Object.keys(callers).length} callers; ${[...statuses].map(([action, n]) => `${action} ${n}`).join(', ')}), ${requests} requests, ${leaks.length} leaks, ${failures.length} failures, ${listsShowingA} lists showing A's rows`);
        expect(failures).toEqual([]);
        expect(sent).toBeGreaterThanOrEqual(1_000);
        // every collection's plain list, for every caller, shows A's row at least
        expect(listsShowingA).toBeGreaterThanOrEqual(Object.keys(callers).length * 20);
        for (const as of Object.values(callers)) {
            for (const [kind, ids] of Object.entries(a.ids)) expect((await app.request({ method: 'GET', url: `/${kind}/${ids[0]}`, as })).statusCode, `read A's ${kind}`).toBe(200);
        }
        expect(stateChanges(before, await realmState(app, b))).toEqual([]);
        expect(await adminReads(b)).toEqual(adminView);
    }, 600_000);
});
