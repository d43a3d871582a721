import { CreateIndexNode, CreateTableNode, sql, type KyselyPlugin, type QueryId, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../../test/databases.js';
import type { DatabaseHandle } from './connect.js';
import { migrateToLatest, migrationStatus } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';

const TIMEOUT = 120_000;

/** A schema statement of a migration step: a table or an index of the schema (not the Migrator's own tables). */
function isSchemaStep(node: RootOperationNode): boolean {
    const table = CreateTableNode.is(node) ? node.table : CreateIndexNode.is(node) ? node.table : undefined;
    return table?.table.identifier.name.startsWith('auth_') ?? false;
}

/** Stands for `kill -9` right after the `after`-th schema statement committed: the boot dies there. */
function crashAfter(after: number): KyselyPlugin {
    let seen = 0;
    const fatal = new Set<QueryId>();
    return {
        transformQuery({ node, queryId }) {
            if (isSchemaStep(node) && ++seen === after) fatal.add(queryId);
            return node;
        },
        async transformResult({ result, queryId }) {
            if (fatal.has(queryId)) throw new Error(`killed after schema statement ${after}`);
            return result;
        },
    };
}

/** Tables, columns and indexes of the database, to compare with a migration that ran through. */
async function schemaOf(handle: DatabaseHandle): Promise<string[]> {
    const { rows: columns } = await sql<{ t: string; c: string }>`select table_name as t, column_name as c from information_schema.columns
        where table_schema = database() and table_name like 'auth\\_%'`.execute(handle.db);
    const { rows: indexes } = await sql<{ t: string; i: string }>`select distinct table_name as t, index_name as i from information_schema.statistics
        where table_schema = database() and table_name like 'auth\\_%'`.execute(handle.db);
    return [...columns.map((row) => `${row.t}.${row.c}`), ...indexes.map((row) => `${row.t} index ${row.i}`)].sort();
}

/** MySQL/MariaDB DDL commits statement by statement: a crash mid-migration must not wedge later boots. */
describeEachDialect('migrations survive a crash', (dialect) => {
    let reference: string[];
    beforeAll(async () => {
        const clean = await createTestDatabase(dialect);
        try {
            await migrateToLatest(clean);
            reference = await schemaOf(clean);
        } finally {
            await clean.drop();
        }
    }, TIMEOUT);

    // the first table, the statement after it, and points through the middle and the end of the schema
    for (const after of [1, 2, 20, 45, 70]) {
        let database: TestDatabase | undefined;
        afterAll(async () => database?.drop(), TIMEOUT);

        it(`a first migration killed after schema statement ${after} completes on the next boot`, async () => {
            database = await createTestDatabase(dialect);
            const killed = { ...database, db: database.db.withPlugin(crashAfter(after)) };
            await expect(migrateToLatest(killed)).rejects.toThrow(`killed after schema statement ${after}`);
            await migrateToLatest(database);
            expect((await migrationStatus(database)).map((status) => [status.name, status.executedAt !== null]))
                .toEqual(Object.keys(MIGRATIONS).map((name) => [name, true]));
            expect(await schemaOf(database)).toEqual(reference);
        }, TIMEOUT);
    }
}, ['mysql']);
