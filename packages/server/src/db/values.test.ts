import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedTestDatabase } from '../../test/database-templates.js';
import { describeEachDialect } from '../../test/databases.js';
import type { TestDatabase } from '../../test/databases.js';
import { fromDbBool, fromDbDate, fromDbDateOrNull, nowForDb, toDbBool, toDbDate } from './values.js';

const HOOK_TIMEOUT = 60_000;

describe('db values', () => {
    const instant = new Date('2024-02-29T23:59:58.123Z');

    it('writes SQLite timestamps as ISO-8601 UTC text and passes Dates to the server dialects', () => {
        expect(toDbDate('sqlite', instant)).toBe('2024-02-29T23:59:58.123Z');
        expect(toDbDate('postgres', instant)).toBe(instant);
        expect(toDbDate('mysql', instant)).toBe(instant);
        expect(() => toDbDate('sqlite', new Date(Number.NaN))).toThrow(RangeError);
    });

    it('reads Dates, ISO strings and zone-less strings as UTC', () => {
        expect(fromDbDate(instant).getTime()).toBe(instant.getTime());
        expect(fromDbDate('2024-02-29T23:59:58.123Z').getTime()).toBe(instant.getTime());
        expect(fromDbDate('2024-02-29 23:59:58.123').getTime()).toBe(instant.getTime());
        expect(fromDbDate('2024-03-01T01:59:58.123+02:00').getTime()).toBe(instant.getTime());
        expect(fromDbDateOrNull(null)).toBeNull();
        expect(() => fromDbDate('yesterday')).toThrow(RangeError);
    });

    it('maps booleans per dialect and reads every stored form', () => {
        expect(toDbBool('postgres', true)).toBe(true);
        expect(toDbBool('sqlite', true)).toBe(1);
        expect(toDbBool('mysql', false)).toBe(0);
        for (const truthy of [true, 1, 1n, '1', 'true', 't']) expect(fromDbBool(truthy)).toBe(true);
        for (const falsy of [false, 0, 0n, '0', 'false', 'f', null, undefined]) expect(fromDbBool(falsy)).toBe(false);
    });

    it('stamps now in the dialect form', () => {
        expect(typeof nowForDb('sqlite')).toBe('string');
        expect(nowForDb('postgres')).toBeInstanceOf(Date);
    });
});

describeEachDialect('db values round trip', (dialect) => {
    let database: TestDatabase;
    const originalTz = process.env.TZ;

    beforeAll(async () => {
        // a copy of the run's migrated template (test/database-templates.ts): the migrations are migrate.test.ts's
        database = await createMigratedTestDatabase(dialect);
    }, HOOK_TIMEOUT);

    afterAll(async () => {
        process.env.TZ = originalTz;
        await database?.drop();
    }, HOOK_TIMEOUT);

    it('reads back the instant written, to the millisecond, whatever the process zone', async () => {
        // A non-whole-hour zone in the Node process would shift any local-time conversion.
        process.env.TZ = 'Asia/Kolkata';
        try {
            const written = new Date('2023-10-29T01:30:45.678Z');
            const id = randomUUID();
            await database.db.insertInto('auth_realms').values({
                id,
                name: `r-${id}`,
                display_name: null,
                description: null,
                built_in: toDbBool(dialect, true),
                created_at: toDbDate(dialect, written),
                updated_at: nowForDb(dialect),
            }).execute();
            const row = await database.db.selectFrom('auth_realms').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
            expect(fromDbDate(row.created_at).toISOString()).toBe(written.toISOString());
            expect(fromDbBool(row.built_in)).toBe(true);

            // The stored value itself is UTC, not the process zone's wall clock.
            const stored = await storedText(database, id);
            expect(stored).toBe('2023-10-29 01:30:45.678');
        } finally {
            process.env.TZ = originalTz;
        }
    });
});

async function storedText(database: TestDatabase, id: string): Promise<string | undefined> {
    const db = database.db;
    if (database.dialect === 'postgres') {
        const { rows } = await sql<{ text: string }>`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') as text from auth_realms where id = ${id}`.execute(db);
        return rows[0]?.text;
    }
    if (database.dialect === 'mysql') {
        const { rows } = await sql<{ text: string }>`select date_format(created_at, '%Y-%m-%d %H:%i:%s.%f') as text from auth_realms where id = ${id}`.execute(db);
        return rows[0]?.text.slice(0, 23);
    }
    const { rows } = await sql<{ text: string }>`select replace(replace(created_at, 'T', ' '), 'Z', '') as text from auth_realms where id = ${id}`.execute(db);
    return rows[0]?.text;
}
