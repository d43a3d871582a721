import { BuiltInPolicyType, type PolicyData } from '@realmgate/access';
import { PermissionName } from '@realmgate/core';
import { conflict, issue, validationFailed } from '../../errors/app-error.js';
import type { RequestContext } from '../../authz/request-context.js';
import type { Db } from '../resource/context.js';
import { toRecord } from '../resource/records.js';
import { findPolicy, policyChildren, policyReferences, type PolicyRow } from '../../storage/policies.js';
import { withConfiguration } from './configuration.js';
import { policyFields } from './spec.js';

/**
 * Deepest node depth (root 0) the access library validates (its engine refuses deeper trees), so a
 * deeper tree could never be projected into the catalog: refused when written instead.
 */
const MAX_TREE_DEPTH = 32;

export const COMPOSITE = 'composite';

export async function policyRow(db: Db, id: string): Promise<PolicyRow | undefined> {
    return findPolicy(db, id);
}

/** Decision data about one stored policy: its realm and its record (configuration included). */
export function policyData(row: PolicyRow): PolicyData {
    return {
        [BuiltInPolicyType.REALM_MATCH]: row.realm_id,
        [BuiltInPolicyType.ATTRIBUTES]: withConfiguration(toRecord(policyFields, row), row),
    };
}

/**
 * Every descendant of a node, grouped by parent and ordered by creation, level by level (one query
 * per level, bounded by MAX_TREE_DEPTH), and the height of the subtree (a leaf has height 0).
 */
export async function loadSubtree(db: Db, rootId: string): Promise<{ children: Map<string, PolicyRow[]>; height: number }> {
    const children = new Map<string, PolicyRow[]>();
    let level = [rootId];
    let height = 0;
    while (level.length > 0 && height <= MAX_TREE_DEPTH) {
        const rows = await policyChildren(db, level);
        if (rows.length === 0) break;
        height++;
        for (const row of rows) {
            // every row of this level has a parent: it was selected by parent_id
            const parentId = row.parent_id ?? '';
            const siblings = children.get(parentId) ?? [];
            siblings.push(row);
            children.set(parentId, siblings);
        }
        level = rows.map((row) => row.id);
    }
    return { children, height };
}

/**
 * A parent must be a composite of the same realm (a global child under a global parent, a realm's
 * child under that realm's parent: a realm could otherwise rewrite a global tree that every realm's
 * permissions use), never the node itself or one of its descendants, and the tree must stay within
 * MAX_TREE_DEPTH. Adding or moving a child rewrites the parent's tree, so the actor also needs
 * policy_update on the parent.
 */
export async function assertParent(
    ctx: RequestContext,
    db: Db,
    parentId: string,
    realmId: string | null,
    self: { id: string; height: number } | null,
): Promise<void> {
    const refuse = (message: string) => validationFailed([issue(['parentId'], 'invalid_parent', message)]);
    const parent = await policyRow(db, parentId);
    if (!parent) throw refuse('names no policy');
    if (parent.type !== COMPOSITE) throw refuse('must name a composite policy');
    if ((parent.realm_id ?? null) !== realmId) throw refuse('must name a policy of the same realm (a global policy for a global one)');
    let depth = 1;
    for (let cursor: PolicyRow | undefined = parent; cursor; depth++) {
        if (self && cursor.id === self.id) throw refuse('would make the policy its own ancestor');
        if (depth + (self?.height ?? 0) > MAX_TREE_DEPTH) throw refuse(`would make the tree deeper than ${MAX_TREE_DEPTH} levels`);
        cursor = cursor.parent_id ? await policyRow(db, cursor.parent_id) : undefined;
    }
    const authorizer = await ctx.authorizer();
    await authorizer.assert(PermissionName.POLICY_UPDATE, policyData(parent));
}

/**
 * What names a policy tree by its root id: definition bindings, junction policies of grants, and
 * client access policies. Such a policy must stay a root of its realm, and deleting it would
 * silently widen what the references restrict (grants and clients would fall back to NULL).
 */
async function referencesOf(db: Db, id: string): Promise<string[]> {
    return policyReferences(db, id);
}

/** 409 while something names the policy (API.md §1: 409 for a key in use). */
export async function assertUnreferenced(db: Db, id: string, change: string): Promise<void> {
    const references = await referencesOf(db, id);
    if (references.length > 0) throw conflict(`The policy is in use (${references.join(', ')}); it cannot ${change}.`);
}
