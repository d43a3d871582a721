import { PermissionName, isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { notFound } from '../errors/app-error.js';
import { findPermissionDefinition } from '../storage/catalog.js';
import { findPolicyNode } from '../storage/policy-tree.js';
import type { RequestContext } from './request-context.js';

/** The collections of the per-id check routes (`POST /permissions/:id/check`, `POST /policies/:id/check`). */
export type CheckedCollection = 'permissions' | 'policies';

const READ_PERMISSION: Record<CheckedCollection, string> = {
    permissions: PermissionName.PERMISSION_READ,
    policies: PermissionName.POLICY_READ,
};

async function realmOfRow(db: Kysely<Database>, collection: CheckedCollection, id: string): Promise<{ realmId: string | null } | undefined> {
    if (!isUuid(id)) return undefined;
    const key = id.toLowerCase();
    return collection === 'permissions' ? findPermissionDefinition(db, key) : findPolicyNode(db, key);
}

/**
 * The per-id check routes answer identity-optional callers (spec "Authorization routes"), so they
 * must not become an oracle telling anyone whether another realm's id exists and how its policy
 * decides. A row is checkable when it is global (realm null: the same in every deployment), of the
 * caller's own realm, or of a realm the caller's read grant reaches (`permission_read` /
 * `policy_read`, the reach that lets it read the row itself). Any other row answers 404 exactly as an
 * unknown id does.
 */
export async function assertCheckable(deps: { db: Kysely<Database> }, ctx: RequestContext, collection: CheckedCollection, id: string): Promise<void> {
    const row = await realmOfRow(deps.db, collection, id);
    const resource = collection === 'permissions' ? 'permission' : 'policy';
    if (!row) throw notFound(resource);
    if (row.realmId === null || row.realmId === ctx.actor.identity?.realmId) return;
    const authorizer = await ctx.authorizer();
    if (!authorizer.allows(READ_PERMISSION[collection], { realmMatch: row.realmId })) throw notFound(resource);
}
