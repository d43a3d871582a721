import type { Kind, RealmWorld } from './realm-world.js';

/*
 * The cases of the generated realm-isolation suite, combinatorially: every collection × every verb
 * on realm B's rows (plain and realm-mounted URLs, by realm id and by name) × list query shapes
 * (relation filters, include, fields, sort, page). The callers (realm A's) multiply them in the test.
 */

export type Action = 'read' | 'update' | 'replace' | 'delete' | 'create' | 'list' | 'special' | 'bulk';

export interface IsolationCase {
    label: string;
    action: Action;
    method: 'GET' | 'POST' | 'PUT' | 'DELETE';
    url: string;
    payload?: Record<string, unknown>;
    /** a list whose every row would be realm B's: it must be empty with total 0 */
    empty?: boolean;
}

/** the collections with a realm mount, /realms/{realm}/<collection> */
const MOUNTED: Kind[] = ['paths', 'users', 'clients', 'roles', 'permissions', 'scopes', 'policies', 'keys', 'sessions', 'user-attributes', 'role-attributes'];
/** the collections named by a unique name within a realm (PUT /realms/{realm}/<collection>/<name> creates) */
const NAMED: Kind[] = ['paths', 'users', 'clients', 'roles', 'permissions', 'scopes', 'policies'];
const READ_ONLY: Kind[] = ['sessions', 'session-tokens'];

let counter = 0;
const unique = (prefix: string) => `${prefix}-gen-${(counter += 1)}`;

/** a valid update body: validation runs before authorization, so an invalid one would hide the check */
function updateBody(kind: Kind): Record<string, unknown> | undefined {
    switch (kind) {
        case 'realms': case 'users': case 'clients': return { displayName: 'changed' };
        case 'paths': return { name: unique('path') };
        case 'roles': case 'permissions': case 'scopes': case 'policies': return { description: 'changed' };
        case 'keys': return { priority: 7 };
        case 'user-attributes': case 'role-attributes': return { value: 'changed' };
        case 'role-permissions': case 'user-permissions': case 'client-permissions': return { realmScope: 'none' };
        case 'client-scopes': return { default: true };
        case 'user-roles': case 'client-roles': case 'permission-policies': return {};
        default: return undefined;
    }
}

/** bodies that create a row in realm B, or bind realm B's rows to realm A's */
function createBodies(kind: Kind, a: RealmWorld, b: RealmWorld): Record<string, unknown>[] {
    const first = (world: RealmWorld, of: Kind) => world.ids[of][0]!;
    switch (kind) {
        case 'paths': case 'users': case 'clients': case 'roles': case 'permissions': case 'scopes': return [{ name: unique(kind), realmId: b.realmId }];
        case 'policies': return [{ type: 'identity', name: unique('policy'), realmId: b.realmId }, { type: 'identity', name: unique('policy'), realmId: a.realmId, parentId: first(b, 'policies') }];
        case 'keys': return [{ realmId: b.realmId }];
        case 'user-attributes': return [{ name: unique('attr'), value: 'v', userId: first(b, 'users') }, { name: unique('attr'), value: 'v', userId: first(b, 'users'), realmId: a.realmId }];
        case 'role-attributes': return [{ name: unique('attr'), value: 'v', roleId: first(b, 'roles') }];
        case 'user-roles': return [{ userId: first(b, 'users'), roleId: first(a, 'roles') }, { userId: first(a, 'users'), roleId: first(b, 'roles') }];
        case 'client-roles': return [{ clientId: first(b, 'clients'), roleId: first(a, 'roles') }, { clientId: first(a, 'clients'), roleId: first(b, 'roles') }];
        case 'role-permissions': return [{ roleId: first(b, 'roles'), permissionId: first(a, 'permissions') }, { roleId: first(a, 'roles'), permissionId: first(b, 'permissions') }];
        case 'user-permissions': return [{ userId: first(b, 'users'), permissionId: first(a, 'permissions') }, { userId: first(a, 'users'), permissionId: first(b, 'permissions') }];
        case 'client-permissions': return [{ clientId: first(b, 'clients'), permissionId: first(a, 'permissions') }, { clientId: first(a, 'clients'), permissionId: first(b, 'permissions') }];
        case 'client-scopes': return [{ clientId: first(b, 'clients'), scopeId: first(a, 'scopes') }, { clientId: first(a, 'clients'), scopeId: first(b, 'scopes') }];
        case 'permission-policies': return [{ permissionId: first(b, 'permissions'), policyId: first(a, 'policies') }, { permissionId: first(a, 'permissions'), policyId: first(b, 'policies') }];
        default: return [];
    }
}

/** the world's collection a relation points into (`parent` of a path is a path) */
const RELATED: Record<string, Kind> = {
    realm: 'realms', user: 'users', client: 'clients', role: 'roles', permission: 'permissions', policy: 'policies', scope: 'scopes',
    path: 'paths', parent: 'paths', session: 'sessions',
};

/** every relation at once, and a filter through each relation on realm B's row it points to (which selects only B's rows) */
function relationShapes(relations: readonly string[], b: RealmWorld): [string, string, boolean][] {
    if (relations.length === 0) return [];
    const shapes: [string, string, boolean][] = [[`include=${relations.join(',')}`, `include=${relations.join(',')}`, false]];
    for (const relation of relations) {
        // realm's own filter shapes are in listShapes
        const target = RELATED[relation] && relation !== 'realm' ? b.ids[RELATED[relation]][0] : undefined;
        if (target) shapes.push([`include=${relation}&filter[${relation}.id]=B`, `include=${relation}&filter[${relation}.id]=${target}`, true]);
    }
    return shapes;
}

/** list query shapes: relation filters, include, fields, sort, page; `empty` when they select realm B's rows only */
function listShapes(kind: Kind, a: RealmWorld, b: RealmWorld, relations: readonly string[]): [string, string, boolean][] {
    const bRow = b.ids[kind][0]!;
    const aRow = a.ids[kind][0];
    const realmScoped = kind !== 'realms' && !kind.includes('-') || kind.endsWith('-attributes');
    // policies carry realmId but declare no `realm` relation (filter[realm.…] and include=realm answer 400)
    const realmRelation = realmScoped && kind !== 'policies';
    return [
        ['plain', '', false],
        ['filter[id]=B', `filter[id]=${bRow}`, true],
        ['filter[id]=A,B', `filter[id]=${aRow},${bRow}`, false],
        ...(realmScoped ? [
            ['filter[realmId]=B', `filter[realmId]=${b.realmId}`, true],
            ['filter[realmId]=A,B', `filter[realmId]=${a.realmId},${b.realmId}`, false],
        ] as [string, string, boolean][] : []),
        ...(realmRelation ? [
            ['filter[realm.name]=B', `filter[realm.name]=${b.realmName}`, true],
            ['include=realm', 'include=realm', false],
            ['include=realm&filter[realm.id]=B', `include=realm&filter[realm.id]=${b.realmId}`, true],
        ] as [string, string, boolean][] : []),
        ...relationShapes(relations, b),
        ['fields=id', 'fields=id', false],
        ['sort=-createdAt', 'sort=-createdAt', false],
        ['sort=-id&page[limit]=1', 'sort=-id&page[limit]=1', false],
        ['page[offset]=1', 'page[offset]=1', false],
    ];
}

/** `relations`: each collection's relations as GET /<collection>/@schema lists them */
export function isolationCases(a: RealmWorld, b: RealmWorld, relations: Partial<Record<Kind, string[]>>): IsolationCase[] {
    const cases: IsolationCase[] = [];
    const mounts = [b.realmId, b.realmName, a.realmId];
    for (const kind of Object.keys(b.ids) as Kind[]) {
        if (b.ids[kind].length === 0) continue;
        const rowUrls = kind === 'realms' ? [`/realms/${b.realmId}`, `/realms/${b.realmName}`] :
            b.ids[kind].flatMap((bRow) => [`/${kind}/${bRow}`, ...(MOUNTED.includes(kind) ? mounts.map((mount) => `/realms/${mount}/${kind}/${bRow}`) : [])]);
        const update = updateBody(kind);
        const creates = createBodies(kind, a, b);
        for (const url of rowUrls) {
            cases.push({ label: `read ${url}`, action: 'read', method: 'GET', url });
            if (update) cases.push({ label: `update ${url}`, action: 'update', method: 'POST', url, payload: update });
            if (!READ_ONLY.includes(kind)) for (const payload of creates) cases.push({ label: `replace ${url}`, action: 'replace', method: 'PUT', url, payload });
            cases.push({ label: `delete ${url}`, action: 'delete', method: 'DELETE', url });
        }
        for (const payload of creates) cases.push({ label: `create /${kind} ${JSON.stringify(payload)}`, action: 'create', method: 'POST', url: `/${kind}`, payload });
        if (MOUNTED.includes(kind) && !READ_ONLY.includes(kind)) {
            for (const mount of mounts.slice(0, 2)) {
                const { realmId: _realm, ...payload } = creates[0] ?? {};
                cases.push({ label: `create in /realms/${mount}/${kind}`, action: 'create', method: 'POST', url: `/realms/${mount}/${kind}`, payload });
                if (NAMED.includes(kind)) {
                    const body = kind === 'policies' ? { type: 'identity' } : {};
                    cases.push({ label: `upsert /realms/${mount}/${kind}/<new>`, action: 'create', method: 'PUT', url: `/realms/${mount}/${kind}/${unique(kind)}`, payload: body });
                }
            }
        }
        const listUrls = kind === 'realms' ? ['/realms'] : [`/${kind}`, ...(MOUNTED.includes(kind) ? mounts.map((mount) => `/realms/${mount}/${kind}`) : [])];
        for (const url of listUrls) {
            const onB = url.startsWith(`/realms/${b.realmId}/`) || url.startsWith(`/realms/${b.realmName}/`);
            for (const [shape, query, empty] of listShapes(kind, a, b, relations[kind] ?? [])) {
                cases.push({ label: `list ${url}?${shape}`, action: 'list', method: 'GET', url: query ? `${url}?${query}` : url, empty: empty || onB });
            }
        }
    }
    cases.push(...specialCases(a, b));
    return cases;
}

/** the routes beside the collections: secret rotation, expanded policies, checks, bulk session ends */
function specialCases(a: RealmWorld, b: RealmWorld): IsolationCase[] {
    const [client, policy, permission, session, token] = [b.ids.clients[0], b.ids.policies[0], b.ids.permissions[0], b.ids.sessions[0], b.ids['session-tokens'][0]];
    const special = (method: IsolationCase['method'], url: string, payload?: Record<string, unknown>): IsolationCase =>
        // a bulk end (a query, or a whole realm's sessions) answers 200 with what it ended: none of B's
        ({ label: `${method} ${url}`, action: url.includes('?') || url.endsWith('/sessions') ? 'bulk' : 'special', method, url, ...(payload ? { payload } : {}) });
    return [
        special('POST', `/clients/${client}/secret`, {}),
        special('POST', `/realms/${b.realmId}/clients/${client}/secret`, {}),
        special('POST', `/realms/${a.realmId}/clients/${client}/secret`, {}),
        special('GET', `/policies/${policy}/expanded`),
        special('GET', `/realms/${b.realmId}/policies/${policy}/expanded`),
        special('POST', `/policies/${policy}/check`, {}),
        special('POST', `/permissions/${permission}/check`, {}),
        special('DELETE', `/sessions/${session}`),
        special('DELETE', `/sessions?filter[realmId]=${b.realmId}`),
        special('DELETE', `/sessions?filter[id]=${session}`),
        special('DELETE', `/realms/${b.realmId}/sessions`),
        special('DELETE', `/realms/${b.realmName}/sessions?filter[userId]=${b.user.id}`),
        special('DELETE', `/session-tokens?filter[sessionId]=${session}`),
        special('DELETE', `/session-tokens?filter[id]=${token}`),
    ];
}
