import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { addColumn, createIndex, timestampType } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Activation and recovery by mail (spec States "activation round-trip"). auth_users already carries reset_hash,
 * reset_at and activate_hash (0001); the activation code gets its issue time (activate_at) so it
 * can expire like the reset code, and both digests are indexed: the mailed link is looked up by
 * its digest, never by scanning users (DESIGN.md §6).
 */
const USERS = 'auth_users';
const DIGEST = /^[0-9a-f]{64}$/;

/**
 * Spec Versioning ("activation and reset codes stored as a SHA-256 digest"): a migration converts
 * issued codes. A value that is not already a SHA-256 hex digest is a plaintext code written by an
 * older release; it is replaced by its digest, so the link mailed with it keeps working.
 */
async function digestIssuedCodes(db: Kysely<unknown>, column: 'reset_hash' | 'activate_hash'): Promise<void> {
    const users = db as unknown as Kysely<Record<typeof USERS, { id: string; reset_hash: string | null; activate_hash: string | null }>>;
    const rows = await users.selectFrom(USERS).select(['id', column]).where(column, 'is not', null).execute();
    for (const row of rows) {
        const value = row[column];
        if (value === null || DIGEST.test(value)) continue;
        const digest = createHash('sha256').update(value, 'utf8').digest('hex');
        await users.updateTable(USERS).set({ [column]: digest }).where('id', '=', row.id).execute();
    }
}

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, USERS, 'activate_at', timestampType(ctx));
    await digestIssuedCodes(db, 'reset_hash');
    await digestIssuedCodes(db, 'activate_hash');
    await createIndex(db, ctx, USERS, ['reset_hash']);
    await createIndex(db, ctx, USERS, ['activate_hash']);
}

async function down(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    for (const column of ['activate_hash', 'reset_hash']) {
        const index = db.schema.dropIndex(`${USERS}_${column}_idx`);
        // only MySQL names the table of an index
        await (ctx.dialect === 'mysql' ? index.on(USERS) : index.ifExists()).execute();
    }
    await db.schema.alterTable(USERS).dropColumn('activate_at').execute();
}

export const migration: DialectMigration = { up, down };
