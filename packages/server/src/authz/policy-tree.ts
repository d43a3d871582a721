import { defaultPolicyEngine, type CanonicalPolicy } from '@realmgate/access';
import type { PolicyNodeRecord } from '../storage/policy-tree.js';

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
