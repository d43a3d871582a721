import { defaultPolicyEngine, type CanonicalPolicy } from '@realmgate/access';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findPolicyNode, listPolicyChildren, type PolicyNodeRecord } from '../storage/policy-tree.js';

const MAX_POLICY_DEPTH = 32;

export type PolicyRow = Pick<PolicyNodeRecord, 'id' | 'type' | 'invert' | 'config'>;

/** The stored row as a policy node input: its configuration keys, type, invert and children. */
function policyNodeOf(row: PolicyRow, children: unknown[]): Record<string, unknown> {
    let config: Record<string, unknown> = {};
    try {
        config = JSON.parse(row.config) as Record<string, unknown>;
    } catch {
        // a corrupt configuration cannot be projected; the validator below refuses the empty node
        config = { $corrupt: true };
    }
    return {
        ...config,
        type: row.type,
        invert: row.invert,
        ...(row.type === 'composite' ? { children } : {}),
    };
}

/**
 * Assemble the tree rooted at `rootId` from rows indexed by parent, then run the access library's
 * validators: the output is the canonical node the catalog carries (spec: "the output of that
 * type's validator; no entity columns"), or null when this server cannot project it.
 */
export function projectPolicyTree(
    rootId: string,
    rowsById: ReadonlyMap<string, PolicyRow>,
    childrenByParent: ReadonlyMap<string, PolicyRow[]>,
): CanonicalPolicy | null {
    const build = (row: PolicyRow, depth: number): Record<string, unknown> => {
        const children = depth > 32 ? [] : (childrenByParent.get(row.id) ?? []).map((child) => build(child, depth + 1));
        return policyNodeOf(row, children);
    };
    const root = rowsById.get(rootId);
    if (!root) return null;
    try {
        return defaultPolicyEngine.validate(build(root, 0));
    } catch {
        return null;
    }
}

/** The tree rooted at a policy row (a child node included), read level by level. */
export async function loadPolicyTree(db: Kysely<Database>, id: string): Promise<{ found: boolean; tree: CanonicalPolicy | null; realmId: string | null }> {
    const root = await findPolicyNode(db, id);
    if (!root) return { found: false, tree: null, realmId: null };
    const rowsById = new Map<string, PolicyRow>([[root.id, root]]);
    const childrenByParent = new Map<string, PolicyRow[]>();
    let level = [root.id];
    for (let depth = 0; level.length > 0 && depth <= MAX_POLICY_DEPTH; depth++) {
        const rows = await listPolicyChildren(db, level);
        level = [];
        for (const row of rows) {
            if (rowsById.has(row.id)) continue;
            rowsById.set(row.id, row);
            childrenByParent.set(row.parentId!, [...(childrenByParent.get(row.parentId!) ?? []), row]);
            level.push(row.id);
        }
    }
    return { found: true, tree: projectPolicyTree(root.id, rowsById, childrenByParent), realmId: root.realmId };
}
