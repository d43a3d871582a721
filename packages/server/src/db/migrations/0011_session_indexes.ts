import { sql, type Kysely } from 'kysely';
import { createIndex } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * The indexes of auth_sessions, which every token pays for (client_credentials
 * writes one row per token, a refresh updates seen_at and expires_at). docs/indexes.md lists each
 * remaining index beside the query that uses it (EXPLAIN on PostgreSQL).
 *
 * - seen_at: no query reads it through an index. The admin list's seenAt filter runs inside a
 *   realm (the realm_id index narrows it) and is rare; the index cost a write on every refresh.
 * - user_id, parent_id: null on most rows (a client's session has no user; only an application
 *   session signed in through a browser session has a parent). On PostgreSQL and SQLite they
 *   become partial indexes over the non-null rows, so a client_credentials token writes neither;
 *   every query on them (`user_id = ?`, `parent_id IN (…)`, the foreign-key cascade of a deleted
 *   user) is a comparison, which implies IS NOT NULL, so the planners still use them. MySQL has
 *   no partial index (and its foreign key on user_id needs one), so they stay whole there.
 */
const TABLE = 'auth_sessions';
const PARTIAL = ['user_id', 'parent_id'] as const;

async function dropIndex(db: Kysely<unknown>, ctx: MigrationContext, name: string): Promise<void> {
    const index = db.schema.dropIndex(name);
    // MySQL names the table of the index and has no IF EXISTS on DROP INDEX
    await (ctx.dialect === 'mysql' ? index.on(TABLE) : index.ifExists()).execute();
}

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await dropIndex(db, ctx, `${TABLE}_seen_at_idx`);
    if (ctx.dialect === 'mysql') return;
    for (const column of PARTIAL) {
        const name = `${TABLE}_${column}_idx`;
        await dropIndex(db, ctx, name);
        await db.schema.createIndex(name).on(TABLE).column(column).where(sql.ref(column), 'is not', null).execute();
    }
}

async function down(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    if (ctx.dialect !== 'mysql') {
        for (const column of PARTIAL) {
            await dropIndex(db, ctx, `${TABLE}_${column}_idx`);
            await createIndex(db, ctx, TABLE, [column]);
        }
    }
    await createIndex(db, ctx, TABLE, ['seen_at']);
}

export const migration: DialectMigration = { up, down };
