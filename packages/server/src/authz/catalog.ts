import { WITHHELD_POLICY_TYPE, type AuthorizationCatalog, type AuthorizationCatalogPermission, type PolicyNodeInput } from '@realmgate/access';
import { isDecisionStrategy } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { loadCatalogSources } from '../storage/catalog.js';
import { projectPolicyTree, type PolicyRow } from './policy-tree.js';

/**
 * The server-side catalog: every definition with its definition-policy trees, and every tree a
 * grant can name. The server decides with exactly the catalog a consumer would fetch (one engine,
 * DESIGN.md §2). Definitions are sorted by permission key (spec catalog table).
 */
export async function buildCatalog(db: Kysely<Database>): Promise<AuthorizationCatalog> {
    const { permissions, bindings, policies } = await loadCatalogSources(db);

    const rowsById = new Map<string, PolicyRow>();
    const childrenByParent = new Map<string, PolicyRow[]>();
    for (const row of policies) {
        rowsById.set(row.id, row);
        if (row.parentId) {
            const siblings = childrenByParent.get(row.parentId) ?? [];
            siblings.push(row);
            childrenByParent.set(row.parentId, siblings);
        }
    }

    // every root tree, since any root can be named by a grant; a tree this server cannot project
    // travels as the withheld node, so grants naming it are dropped instead of reporting stale
    const trees: Record<string, PolicyNodeInput> = {};
    const unprojectable = new Set<string>();
    const treeRealms = new Map<string, string | null>();
    for (const row of policies) {
        if (row.parentId) continue;
        treeRealms.set(row.id, row.realmId);
        const tree = projectPolicyTree(row.id, rowsById, childrenByParent);
        if (tree) {
            trees[row.id] = tree;
        } else {
            unprojectable.add(row.id);
            trees[row.id] = { type: WITHHELD_POLICY_TYPE, invert: false };
        }
    }

    const policiesByPermission = new Map<string, string[]>();
    for (const binding of bindings) {
        const list = policiesByPermission.get(binding.permissionId) ?? [];
        list.push(binding.policyId);
        policiesByPermission.set(binding.permissionId, list);
    }

    const entries: (AuthorizationCatalogPermission & { key: string })[] = permissions.map((permission) => {
        const ids = (policiesByPermission.get(permission.id) ?? []).sort();
        const projectable = ids.every((id) => id in trees && !unprojectable.has(id)) && isDecisionStrategy(permission.decisionStrategy);
        return {
            key: permissionKey(permission.name, permission.realmId, permission.clientId),
            name: permission.name,
            realm_id: permission.realmId,
            client_id: permission.clientId,
            decision_strategy: isDecisionStrategy(permission.decisionStrategy) ? permission.decisionStrategy : 'unanimous',
            // spec catalog rule 1: a definition whose tree cannot be projected is listed with policies null
            policies: projectable ? ids : null,
        };
    });
    entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const catalog: AuthorizationCatalog = { policies: trees, permissions: entries.map(({ key: _key, ...entry }) => entry) };
    realmsOfTrees.set(catalog, treeRealms);
    return catalog;
}

/** The realm of each root tree, kept beside the catalog (never on the wire) for reach narrowing. */
const realmsOfTrees = new WeakMap<AuthorizationCatalog, ReadonlyMap<string, string | null>>();

/** The realm a tree of a built catalog belongs to; undefined for a tree this catalog does not know. */
export function treeRealmOf(catalog: AuthorizationCatalog, treeId: string): string | null | undefined {
    return realmsOfTrees.get(catalog)?.get(treeId);
}

/** The permission key definitions are sorted by: name, then realm, then client. */
export function permissionKey(name: string, realmId: string | null, clientId: string | null): string {
    return `${name}\u0000${realmId ?? ''}\u0000${clientId ?? ''}`;
}
