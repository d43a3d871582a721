import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { ensureBuiltInPolicy } from '../storage/bootstrap.js';

export interface PolicySeed {
    name: string;
    type: string;
    invert?: boolean;
    config: Record<string, unknown>;
    children?: PolicySeed[];
}

/** A built-in global policy tree: created when missing, left alone otherwise. Returns the root id. */
export async function ensurePolicyTree(db: Kysely<Database>, dialect: DialectName, seed: PolicySeed, parentId: string | null = null): Promise<string> {
    const id = await ensureBuiltInPolicy(db, dialect, {
        name: seed.name, type: seed.type, invert: seed.invert ?? false, config: JSON.stringify(seed.config), parentId,
    });
    for (const child of seed.children ?? []) await ensurePolicyTree(db, dialect, child, id);
    return id;
}
