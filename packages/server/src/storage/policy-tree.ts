import type { Kysely } from 'kysely';
import type { Database, PolicyTable } from '../db/schema.js';
import { fromDbBool } from '../db/values.js';

/** One node of a stored policy tree (auth_policies): a root has no parent. */
export interface PolicyNodeRecord {
    id: string;
    type: string;
    invert: boolean;
    /** JSON of the type's configuration keys */
    config: string;
    parentId: string | null;
    realmId: string | null;
}

const NODE_COLUMNS = ['id', 'type', 'invert', 'config', 'parent_id', 'realm_id'] as const;

function nodeRecordOf(row: Pick<PolicyTable, (typeof NODE_COLUMNS)[number]>): PolicyNodeRecord {
    return { id: row.id, type: row.type, invert: fromDbBool(row.invert), config: row.config, parentId: row.parent_id, realmId: row.realm_id };
}

/** Every policy node of every tree (the catalog projects them all). */
export async function listPolicyNodes(db: Kysely<Database>): Promise<PolicyNodeRecord[]> {
    return (await db.selectFrom('auth_policies').select(NODE_COLUMNS).execute()).map(nodeRecordOf);
}

/** One policy node by id; undefined when there is none. */
export async function findPolicyNode(db: Kysely<Database>, id: string): Promise<PolicyNodeRecord | undefined> {
    const row = await db.selectFrom('auth_policies').select(NODE_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && nodeRecordOf(row);
}

/** The children of the given nodes (one level of a tree). */
export async function listPolicyChildren(db: Kysely<Database>, parentIds: readonly string[]): Promise<PolicyNodeRecord[]> {
    return (await db.selectFrom('auth_policies').select(NODE_COLUMNS).where('parent_id', 'in', parentIds).execute()).map(nodeRecordOf);
}
