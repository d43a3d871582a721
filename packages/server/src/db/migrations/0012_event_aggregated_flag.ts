import { sql, type Kysely } from 'kysely';
import { addColumn } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Incremental event aggregates (spec Events 1–2): `auth_events.aggregated` is 0 until the
 * worker's pass has added the event to its day's count, 1 after, set in the same transaction as
 * the count (domains/event-log/maintenance.ts explains why a flag and not an id or time watermark:
 * ids are random UUIDs and the detached writer of two replicas commits out of time order).
 *
 * The pass reads the unaggregated events oldest first, with the aggregate's dimensions: on SQLite
 * and PostgreSQL a partial index over `aggregated = 0` (only the events written since the last
 * pass, so it stays small), holding the dimensions too so SQLite reads it without visiting the
 * table (a covering index: the pass's read costs a third of a table read, measured with
 * test/measure/event-aggregates.ts); MySQL has no partial index, so the flag leads the index
 * (InnoDB adds the primary key `id` to it, so it covers the read there too).
 *
 * Existing rows: the old pass recounted the last two aggregated days on every run, so their
 * aggregates are dropped and their events left at 0 (the next passes count them again); every
 * older event is taken as counted (its day was final, or it is older than the earliest aggregate
 * and the whole-day backfill counts it regardless of the flag).
 */
const TABLE = 'auth_events';
const INDEX = 'auth_events_unaggregated_idx';
const DAY = 86_400_000;

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, TABLE, 'aggregated', 'integer', (col) => col.notNull().defaultTo(0));
    const index = db.schema.createIndex(INDEX).on(TABLE);
    const columns = ['created_at', 'realm_id', 'scope', 'name', 'ref_type'];
    if (ctx.dialect === 'mysql') await index.columns(['aggregated', ...columns]).execute();
    else await index.columns(columns).where(sql.ref('aggregated'), '=', sql.lit(0)).execute();

    const { rows } = await sql<{ day: string | null }>`select max(day) as day from auth_event_aggregates`.execute(db);
    const last = rows[0]?.day ?? null;
    if (last === null) return;
    const recount = new Date(Date.parse(`${last}T00:00:00.000Z`) - DAY);
    const recountDay = recount.toISOString().slice(0, 10);
    await sql`delete from auth_event_aggregates where day >= ${recountDay}`.execute(db);
    // created_at is text on SQLite (ISO strings), a timestamp elsewhere
    const cut = ctx.dialect === 'sqlite' ? recount.toISOString() : recount;
    await sql`update auth_events set aggregated = 1 where created_at < ${cut}`.execute(db);
}

async function down(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await (ctx.dialect === 'mysql' ? db.schema.dropIndex(INDEX).on(TABLE) : db.schema.dropIndex(INDEX).ifExists()).execute();
    await db.schema.alterTable(TABLE).dropColumn('aggregated').execute();
}

export const migration: DialectMigration = { up, down };
