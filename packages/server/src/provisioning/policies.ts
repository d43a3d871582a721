import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbBool, toDbDate, type DialectName } from '../db/values.js';
import { insertIgnoringDuplicate } from './insert.js';

export interface PolicySeed {
    name: string;
    type: string;
    invert?: boolean;
    config: Record<string, unknown>;
    children?: PolicySeed[];
}

/** A built-in global policy tree: created when missing, left alone otherwise. Returns the root id. */
export async function ensurePolicyTree(db: Kysely<Database>, dialect: DialectName, seed: PolicySeed, parentId: string | null = null): Promise<string> {
    const find = () => db.selectFrom('auth_policies').select('id').where('name', '=', seed.name).where('realm_id', 'is', null).executeTakeFirst();
    let found = await find();
    if (!found) {
        const now = toDbDate(dialect, new Date());
        await insertIgnoringDuplicate(() => db.insertInto('auth_policies').values({
            id: randomUUID(), type: seed.type, name: seed.name, display_name: null, description: null,
            invert: toDbBool(dialect, seed.invert ?? false), config: JSON.stringify(seed.config), parent_id: parentId,
            realm_id: null, built_in: toDbBool(dialect, true), created_at: now, updated_at: now,
        }).execute());
        found = await find();
    }
    for (const child of seed.children ?? []) await ensurePolicyTree(db, dialect, child, found!.id);
    return found!.id;
}
