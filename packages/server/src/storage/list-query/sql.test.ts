import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { expressionBuilder, Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConditionScalar } from '@realmgate/access';
import { matchQueryCondition } from '../../query/match.js';
import { applyCondition, applyPage, applySort, escapeLike } from './sql.js';
import type { ColumnResolver, ColumnType, SqlDialect } from './sql-column.js';
import type { QueryCondition } from '../../query/types.js';

// A scratch table per run: real databases, no mocks (DESIGN.md §7.5). Columns as the spec'd kinds
// map to each dialect (uuid, timestamptz / datetime(3) / ISO text, boolean / tinyint / integer).
interface Row {
    id: string;
    name: string | null;
    n: number | null;
    flag: boolean | null;
    realmId: string | null;
    createdAt: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a scratch table outside the schema
type AnyDb = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyResolver = ColumnResolver<any, any>;

interface Target {
    dialect: SqlDialect;
    db: AnyDb;
    table: string;
}

const uuid = (i: number): string => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const R1 = '6f1c2a9e-3b7d-4c58-9e21-0a4b5c6d7e8f';
const R2 = 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d';
// Case, trailing spaces, LIKE wildcards, the escape character, non-ASCII and astral characters.
const NAMES = ['alpha', 'Alpha', 'ALPHA', 'alpha ', 'al%ha', 'al_ha', 'a!b', 'back\\slash', '', 'ß', 'ss', 'é', 'e', '日本語', '😀x', 'x😀', 'zeta', ' lead', 'a b'];
const NUMBERS = [-5, 0, 1, 2, 3, 10, 100];
const DATES = ['2023-12-31T23:59:59.999Z', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.001Z', '2024-06-15T12:30:00.000Z', '2025-01-01T00:00:00.000Z'];

const ROWS: Row[] = Array.from({ length: 30 }, (_, i) => ({
    id: uuid(i + 1),
    name: i % 7 === 3 ? null : NAMES[i % NAMES.length]!,
    n: i % 5 === 4 ? null : NUMBERS[i % NUMBERS.length]!,
    flag: [true, false, null][i % 3]!,
    realmId: [R1, R2, null, R1][i % 4]!,
    createdAt: DATES[i % DATES.length]!,
}));

const COLUMNS: Record<keyof Row, { column: string; type: ColumnType }> = {
    id: { column: 'id', type: 'uuid' },
    name: { column: 'name', type: 'string' },
    n: { column: 'n', type: 'number' },
    flag: { column: 'flag', type: 'boolean' },
    realmId: { column: 'realm_id', type: 'uuid' },
    createdAt: { column: 'created_at', type: 'date' },
};

const typedColumns: AnyResolver = (field) => {
    const found = Object.hasOwn(COLUMNS, field) ? COLUMNS[field as keyof Row] : undefined;
    return found ? { ref: sql.ref(found.column), type: found.type } : null;
};
/** Bare references, as a route may pass them: exact for text, number and boolean columns. */
const bareColumns: AnyResolver = (field) => (Object.hasOwn(COLUMNS, field) ? sql.ref(COLUMNS[field as keyof Row].column) : null);

const DDL: Record<SqlDialect, string> = {
    sqlite: 'id text primary key, name text, n integer, flag integer, realm_id text, created_at text not null',
    postgres: 'id uuid primary key, name text, n integer, flag boolean, realm_id uuid, created_at timestamptz not null',
    // The server's default collation (case-insensitive, PAD SPACE) on purpose: the translation must not depend on it.
    mysql: 'id char(36) primary key, name varchar(100), n int, flag tinyint(1), realm_id char(36), created_at datetime(3) not null',
};

async function createTarget(dialect: SqlDialect, url?: string): Promise<Target> {
    const db: AnyDb =
        dialect === 'sqlite'
            ? new Kysely({ dialect: new SqliteDialect({ database: new Database(':memory:') }) })
            : dialect === 'postgres'
              ? new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }) })
              : new Kysely({ dialect: new MysqlDialect({ pool: createPool({ uri: url!, connectionLimit: 2 }) }) });
    const table = `query_sql_${randomBytes(4).toString('hex')}`;
    await sql`CREATE TABLE ${sql.table(table)} (${sql.raw(DDL[dialect])})`.execute(db);
    await db
        .insertInto(table)
        .values(
            ROWS.map((row) => ({
                id: row.id,
                name: row.name,
                n: row.n,
                flag: row.flag === null ? null : dialect === 'postgres' ? row.flag : Number(row.flag),
                realm_id: row.realmId,
                created_at: dialect === 'mysql' ? row.createdAt.replace('T', ' ').replace('Z', '') : row.createdAt,
            })),
        )
        .execute();
    return { dialect, db, table };
}

const TARGETS: [SqlDialect, string | undefined][] = [['sqlite', undefined]];
if (process.env.TEST_POSTGRES_URL) TARGETS.push(['postgres', process.env.TEST_POSTGRES_URL]);
if (process.env.TEST_MYSQL_URL) TARGETS.push(['mysql', process.env.TEST_MYSQL_URL]);

async function selectIds(target: Target, condition: QueryCondition, columns = typedColumns): Promise<string[]> {
    const rows = await target.db
        .selectFrom(target.table)
        .select('id')
        .where((eb) => applyCondition(eb, condition, columns, { dialect: target.dialect }))
        .execute();
    return rows.map((row) => String(row.id)).sort();
}

const expectedIds = (condition: QueryCondition): string[] =>
    ROWS.filter((row) => matchQueryCondition(condition, row))
        .map((row) => row.id)
        .sort();

// ---- condition generators -------------------------------------------------------------------

const text = fc.oneof(
    fc.constantFrom(...NAMES),
    fc.string({ unit: fc.constantFrom('a', 'A', 'l', 'p', 'h', 'z', '%', '_', '!', '\\', ' ', 'ß', 'é', '日', '😀'), maxLength: 4 }),
);
const numberValue = fc.oneof(fc.constantFrom(...NUMBERS), fc.integer({ min: -20, max: 120 }), fc.double({ min: -20, max: 120, noNaN: true }));
const uuidValue = fc.constantFrom(R1, R2, uuid(1), uuid(7), R1.toUpperCase(), 'not-a-uuid');
const dateValue = fc.oneof(
    fc.constantFrom(...DATES),
    fc.date({ min: new Date('2023-12-01T00:00:00Z'), max: new Date('2025-02-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString()),
);
const anyScalar: fc.Arbitrary<ConditionScalar> = fc.oneof(text, numberValue, fc.boolean(), fc.constant(null), uuidValue, dateValue);

/** Values of the field's own type (bare columns have no type to settle a mismatch with). */
const valueOf: Record<keyof Row, fc.Arbitrary<ConditionScalar>> = {
    id: fc.constantFrom(uuid(1), uuid(2), uuid(9), null),
    name: fc.oneof(text, fc.constant(null)),
    n: fc.oneof(numberValue, fc.constant(null)),
    flag: fc.constantFrom(true, false, null),
    realmId: fc.constantFrom(R1, R2, null),
    createdAt: fc.oneof(dateValue, fc.constant(null)),
};

function conditionArbitrary(typed: boolean): fc.Arbitrary<QueryCondition> {
    const fields = (typed ? Object.keys(COLUMNS) : ['name', 'n', 'flag', 'realmId', 'id']) as (keyof Row)[];
    const scalarFor = (field: keyof Row): fc.Arbitrary<ConditionScalar> => (typed ? anyScalar : valueOf[field]);
    const leaf = fc.constantFrom(...fields).chain((field): fc.Arbitrary<QueryCondition> => {
        const scalar = scalarFor(field);
        const ordered: fc.Arbitrary<string | number> =
            field === 'createdAt' ? fc.oneof(dateValue, numberValue) : typed ? fc.oneof(text, numberValue, dateValue) : field === 'n' ? numberValue : text;
        const options: fc.Arbitrary<QueryCondition>[] = [
            fc.record({ operator: fc.constantFrom('eq' as const, 'ne' as const), field: fc.constant(field), value: scalar }),
            fc.record({ operator: fc.constantFrom('in' as const, 'nin' as const), field: fc.constant(field), value: fc.array(scalar, { maxLength: 4 }) }),
            fc.record({ operator: fc.constant('exists' as const), field: fc.constant(field), value: fc.boolean() }),
        ];
        // Bare uuid columns take equality only (PostgreSQL has no order or LIKE on uuid without the
        // type); booleans have no order in matchCondition.
        if (typed || field === 'name' || field === 'n') {
            options.push(fc.record({ operator: fc.constantFrom('gt' as const, 'gte' as const, 'lt' as const, 'lte' as const), field: fc.constant(field), value: ordered }));
        }
        if (field !== 'createdAt' && (typed || field === 'name')) {
            const operators = ['startsWith', 'endsWith', 'contains'] as const;
            options.push(fc.record({ operator: fc.constantFrom(...operators), field: fc.constant(field), value: text }));
        }
        return fc.oneof(...options);
    });
    const { tree } = fc.letrec<{ tree: QueryCondition }>((tie) => ({
        tree: fc.oneof(
            { depthSize: 'small', withCrossShrink: true },
            leaf,
            fc.record({ operator: fc.constantFrom('and' as const, 'or' as const), conditions: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }) }),
            fc.record({ operator: fc.constant('not' as const), condition: tie('tree') }),
        ),
    }));
    return tree;
}

// ---- tests -----------------------------------------------------------------------------------

describe.each(TARGETS)('applyCondition on %s', (dialect, url) => {
    let target: Target;
    beforeAll(async () => {
        target = await createTarget(dialect, url);
    });
    afterAll(async () => {
        if (!target) return;
        await sql`DROP TABLE ${sql.table(target.table)}`.execute(target.db);
        await target.db.destroy();
    });

    it('selects exactly the rows matchCondition accepts (typed columns, values of any type)', async () => {
        await fc.assert(
            fc.asyncProperty(conditionArbitrary(true), async (condition) => {
                expect(await selectIds(target, condition)).toEqual(expectedIds(condition));
            }),
            { numRuns: dialect === 'sqlite' ? 600 : 250 },
        );
    });

    it('selects exactly the rows matchCondition accepts (bare column references)', async () => {
        await fc.assert(
            fc.asyncProperty(conditionArbitrary(false), async (condition) => {
                expect(await selectIds(target, condition, bareColumns)).toEqual(expectedIds(condition));
            }),
            { numRuns: dialect === 'sqlite' ? 300 : 120 },
        );
    });

    it('null-safe two-valued logic: ne, nin and not include NULL rows', async () => {
        const nullNames = ROWS.filter((row) => row.name === null).map((row) => row.id);
        const nullNumbers = ROWS.filter((row) => row.n === null).map((row) => row.id);
        const cases: [QueryCondition, string[]][] = [
            [{ operator: 'ne', field: 'name', value: 'alpha' }, nullNames],
            [{ operator: 'nin', field: 'name', value: ['alpha', 'zeta'] }, nullNames],
            [{ operator: 'not', condition: { operator: 'startsWith', field: 'name', value: 'a' } }, nullNames],
            [{ operator: 'not', condition: { operator: 'gt', field: 'n', value: 1 } }, nullNumbers],
        ];
        for (const [condition, nullRows] of cases) {
            const ids = await selectIds(target, condition);
            expect(ids).toEqual(expectedIds(condition));
            expect(nullRows.length).toBeGreaterThan(0);
            expect(ids).toEqual(expect.arrayContaining(nullRows));
        }
        expect(await selectIds(target, { operator: 'in', field: 'name', value: [] })).toEqual([]);
        expect(await selectIds(target, { operator: 'nin', field: 'name', value: [] })).toHaveLength(ROWS.length);
        expect(await selectIds(target, { operator: 'in', field: 'name', value: [null] })).toEqual(nullNames.sort());
    });

    it('text tests are exact: case, trailing spaces and LIKE wildcards', async () => {
        const names = async (condition: QueryCondition): Promise<(string | null)[]> =>
            (await selectIds(target, condition)).map((id) => ROWS.find((row) => row.id === id)!.name);
        expect(new Set(await names({ operator: 'eq', field: 'name', value: 'alpha' }))).toEqual(new Set(['alpha']));
        expect(new Set(await names({ operator: 'startsWith', field: 'name', value: 'al' }))).toEqual(new Set(['alpha', 'alpha ', 'al%ha', 'al_ha']));
        expect(new Set(await names({ operator: 'contains', field: 'name', value: '%' }))).toEqual(new Set(['al%ha']));
        expect(new Set(await names({ operator: 'contains', field: 'name', value: '_' }))).toEqual(new Set(['al_ha']));
        expect(new Set(await names({ operator: 'endsWith', field: 'name', value: '\\slash' }))).toEqual(new Set(['back\\slash']));
        expect(new Set(await names({ operator: 'contains', field: 'name', value: '!' }))).toEqual(new Set(['a!b']));
        expect(new Set(await names({ operator: 'eq', field: 'name', value: 'ss' }))).toEqual(new Set(['ss']));
    });

    it('sorts with an id tiebreaker and pages', async () => {
        const query = target.db.selectFrom(target.table).select('id');
        const rows = await applyPage(applySort(query, [{ field: 'n', direction: 'desc' }], typedColumns), { limit: 3, offset: 1 }).execute();
        expect(rows).toHaveLength(3);
    });

    it('an unmapped field is a programming error', () => {
        const eb = expressionBuilder<Record<string, never>, never>();
        expect(() => applyCondition(eb, { operator: 'eq', field: 'nope', value: 1 }, typedColumns, { dialect })).toThrow(/no column/);
    });
});

describe('escapeLike', () => {
    it('escapes the wildcards and the escape character', () => {
        expect(escapeLike('a%b_c!d\\e')).toBe('a!%b!_c!!d\\e');
    });
});
