import { randomUUID } from 'node:crypto';
import type { RealmScope } from '@realmgate/core';
import { toDbBool, toDbDate } from '../src/db/values.js';
import type { TestApp } from './app.js';
import { NAME_POOL, nodeConfig, type GrantSpec, type OwnerSpec, type TokenVia, type TreeSpec, type WorldSpec } from './equivalence-world.js';
import { createClient } from './identities.js';

/*
 * Lowers a generated world (equivalence-world.ts) to rows, written straight into the database in
 * one multi-row statement per table (like grant-fixtures.ts), then invalidates the server's
 * catalog as the API's own writes do. Names carry a per-world prefix, so worlds never meet.
 */

export interface Realm { id: string; name: string }
export interface AppClient { id: string; secret: string }

/** Rows created once per app and shared by every world. */
export interface Pool {
    realms: Realm[];
    /** two confidential clients per pool realm, through which user tokens are issued */
    apps: { A: AppClient; B: AppClient }[];
    systemDefaultId: string;
    scopeReadId: string;
    /** one bcrypt hash shared by every generated user */
    passwordHash: string;
}

export const USER_PASSWORD = 'equivalence-secret-1';

export interface BuiltSubject {
    kind: 'user' | 'client';
    id: string;
    name: string;
    realm: Realm;
    secret: string | null;
    via: TokenVia[];
}

export interface BuiltDefinition { id: string; name: string; realmId: string | null; clientId: string | null }

export interface BuiltWorld {
    names: string[];
    definitions: BuiltDefinition[];
    subjects: BuiltSubject[];
    /** realm of every root tree */
    treeRealms: Map<string, string | null>;
    /** roots holding a node of a type nobody can project */
    unprojectableTrees: Set<string>;
    /** definitions bound to such a tree */
    unprojectableDefinitions: Set<string>;
    /** deletes the world's rows (junctions cascade), so the catalog stays the size of one world */
    remove(): Promise<void>;
}

interface PolicyRow { id: string; type: string; config: string; invert: boolean; parent_id: string | null; realm_id: string | null }

function treeRows(tree: TreeSpec, realmId: string | null, parentId: string | null, now: number, out: PolicyRow[]): { id: string; unknown: boolean } {
    const id = randomUUID();
    if (tree.kind === 'composite') {
        out.push({ id, type: 'composite', config: JSON.stringify({ decisionStrategy: tree.strategy }), invert: tree.invert, parent_id: parentId, realm_id: realmId });
        let unknown = false;
        for (const child of tree.children) unknown = treeRows(child, realmId, id, now, out).unknown || unknown;
        return { id, unknown };
    }
    const { type, config } = nodeConfig(tree, now);
    out.push({ id, type, config: JSON.stringify(config), invert: tree.kind !== 'unknown' && tree.invert, parent_id: parentId, realm_id: realmId });
    return { id, unknown: tree.kind === 'unknown' };
}

function dedupe<T>(items: T[], key: (item: T) => string): T[] {
    const seen = new Set<string>();
    return items.filter((item) => {
        const k = key(item);
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
    });
}

export async function buildWorld(app: TestApp, pool: Pool, spec: WorldSpec, now: number): Promise<BuiltWorld> {
    const { db } = app.deps;
    const dialect = app.deps.handle.dialect;
    const bool = (value: boolean) => toDbBool(dialect, value);
    const stamp = toDbDate(dialect, new Date());
    const stamps = { created_at: stamp, updated_at: stamp };
    const prefix = `eq${randomUUID().slice(0, 8)}`;
    const realmOf = (index: number | null) => (index === null ? null : pool.realms[index]!.id);

    // subjects: clients through the API (they need a secret for client_credentials), users as rows
    const subjects: BuiltSubject[] = [];
    const users: Record<string, unknown>[] = [];
    for (const [index, subject] of spec.subjects.entries()) {
        const realm = pool.realms[subject.realm]!;
        const name = `${prefix}-s${index}`;
        if (subject.kind === 'client') {
            const client = await createClient(app, realm.id, name);
            subjects.push({ kind: 'client', id: client.id, name, realm, secret: client.secret, via: ['none'] });
        } else {
            const id = randomUUID();
            users.push({
                id, name, name_locked: bool(true), first_name: null, last_name: null, display_name: null, email: null,
                password: pool.passwordHash, reset_hash: null, reset_at: null, activate_hash: null, email_verified: bool(false),
                active: bool(true), status: null, status_message: null, path_id: null, realm_id: realm.id, ...stamps,
            });
            subjects.push({ kind: 'user', id, name, realm, secret: null, via: subject.via });
        }
    }
    const clientSubjects = subjects.filter((subject) => subject.kind === 'client');
    /** the owning client and the realm a client-owned row is filed under */
    const ownerOf = (owner: OwnerSpec, realm: number | null): { clientId: string | null; realmId: string | null } => {
        if (owner === null) return { clientId: null, realmId: realmOf(realm) };
        if ('app' in owner) return { clientId: pool.apps[realm ?? 0]![owner.app].id, realmId: realmOf(realm ?? 0) };
        const subject = clientSubjects[owner.subject % Math.max(clientSubjects.length, 1)];
        return subject ? { clientId: subject.id, realmId: subject.realm.id } : { clientId: null, realmId: realmOf(realm) };
    };

    const policyRows: PolicyRow[] = [];
    const roots = spec.policies.map((policy) => {
        const realmId = realmOf(policy.realm);
        return { realmId, ...treeRows(policy.tree, realmId, null, now, policyRows) };
    });
    const treeRealms = new Map(roots.map((root) => [root.id, root.realmId]));
    const unprojectableTrees = new Set(roots.filter((root) => root.unknown).map((root) => root.id));

    const names = Array.from({ length: NAME_POOL }, (_, index) => `${prefix}_p${index}`);
    const definitions = dedupe(spec.definitions.map((definition) => {
        const { clientId, realmId } = ownerOf(definition.owner, definition.realm);
        // a definition-layer tree is global or of the definition's own realm (POST /permission-policies)
        const extras = definition.extras.map((index) => roots[index % roots.length]!).filter((root) => root.realmId === null || root.realmId === realmId);
        const policies = [...new Set([...(definition.systemDefault ? [pool.systemDefaultId] : []), ...extras.map((root) => root.id)])];
        return { id: randomUUID(), name: names[definition.name]!, realmId, clientId, strategy: definition.strategy, policies };
    }), (definition) => `${definition.name}|${definition.realmId}|${definition.clientId}`);
    const unprojectableDefinitions = new Set(definitions.filter((definition) => definition.policies.some((id) => unprojectableTrees.has(id))).map((definition) => definition.id));

    const roles = spec.roles.map((role, index) => ({ id: randomUUID(), name: `${prefix}-r${index}`, ...ownerOf(role.owner, role.realm) }));
    const target = (grant: GrantSpec) => (grant.target < 0 ? pool.scopeReadId : definitions[grant.target % definitions.length]!.id);
    const junction = (grant: GrantSpec) => (grant.junction === null ? null : roots[grant.junction % roots.length]!.id);
    const grantRow = (grant: GrantSpec) => ({ id: randomUUID(), permission_id: target(grant), realm_scope: grant.scope as RealmScope, policy_id: junction(grant), ...stamps });
    const holder = (index: number) => subjects[index % subjects.length]!;

    const direct = dedupe(spec.grants, (grant) => `${holder(grant.holder).id}|${target(grant)}`);
    const viaRoles = roles.length === 0 ? [] : dedupe(spec.roleGrants, (grant) => `${roles[grant.holder % roles.length]!.id}|${target(grant)}`);
    const assignments = roles.length === 0 ? [] :
        dedupe(spec.assignments, (assignment) => `${holder(assignment.holder).id}|${roles[assignment.role % roles.length]!.id}`);

    if (policyRows.length > 0) {
        await db.insertInto('auth_policies').values(policyRows.map((row) => ({
            ...row, invert: bool(row.invert), name: `${prefix}-${row.id.slice(0, 8)}`, display_name: null, description: null, built_in: bool(false), ...stamps,
        }))).execute();
    }
    if (users.length > 0) await db.insertInto('auth_users').values(users as never).execute();
    await db.insertInto('auth_permissions').values(definitions.map((definition) => ({
        id: definition.id, name: definition.name, display_name: null, description: null, built_in: bool(false),
        decision_strategy: definition.strategy, client_id: definition.clientId, realm_id: definition.realmId, ...stamps,
    }))).execute();
    const bindings = definitions.flatMap((definition) => definition.policies.map((policyId) => ({ id: randomUUID(), permission_id: definition.id, policy_id: policyId, ...stamps })));
    if (bindings.length > 0) await db.insertInto('auth_permission_policies').values(bindings).execute();
    if (roles.length > 0) {
        await db.insertInto('auth_roles').values(roles.map((role) => ({
            id: role.id, name: role.name, display_name: null, description: null, built_in: bool(false), client_id: role.clientId, realm_id: role.realmId, ...stamps,
        }))).execute();
    }
    const userGrants = direct.filter((grant) => holder(grant.holder).kind === 'user').map((grant) => ({ ...grantRow(grant), user_id: holder(grant.holder).id }));
    const clientGrants = direct.filter((grant) => holder(grant.holder).kind === 'client').map((grant) => ({ ...grantRow(grant), client_id: holder(grant.holder).id }));
    if (userGrants.length > 0) await db.insertInto('auth_user_permissions').values(userGrants).execute();
    if (clientGrants.length > 0) await db.insertInto('auth_client_permissions').values(clientGrants).execute();
    if (viaRoles.length > 0) {
        await db.insertInto('auth_role_permissions').values(viaRoles.map((grant) => ({ ...grantRow(grant), role_id: roles[grant.holder % roles.length]!.id }))).execute();
    }
    const userRoles = assignments.filter((assignment) => holder(assignment.holder).kind === 'user');
    const clientRoles = assignments.filter((assignment) => holder(assignment.holder).kind === 'client');
    const roleRow = (assignment: { role: number }) => ({ id: randomUUID(), role_id: roles[assignment.role % roles.length]!.id, ...stamps });
    if (userRoles.length > 0) await db.insertInto('auth_user_roles').values(userRoles.map((a) => ({ ...roleRow(a), user_id: holder(a.holder).id }))).execute();
    if (clientRoles.length > 0) await db.insertInto('auth_client_roles').values(clientRoles.map((a) => ({ ...roleRow(a), client_id: holder(a.holder).id }))).execute();
    app.deps.catalog.invalidate();

    return {
        names,
        definitions: definitions.map(({ id, name, realmId, clientId }) => ({ id, name, realmId, clientId })),
        subjects,
        treeRealms,
        unprojectableTrees,
        unprojectableDefinitions,
        async remove() {
            await db.deleteFrom('auth_permissions').where('id', 'in', definitions.map((definition) => definition.id)).execute();
            if (roles.length > 0) await db.deleteFrom('auth_roles').where('id', 'in', roles.map((role) => role.id)).execute();
            const ids = (kind: 'user' | 'client') => subjects.filter((subject) => subject.kind === kind).map((subject) => subject.id);
            if (ids('user').length > 0) await db.deleteFrom('auth_users').where('id', 'in', ids('user')).execute();
            if (ids('client').length > 0) await db.deleteFrom('auth_clients').where('id', 'in', ids('client')).execute();
            await db.deleteFrom('auth_policies').where('id', 'in', roots.map((root) => root.id)).execute();
            app.deps.catalog.invalidate();
        },
    };
}
