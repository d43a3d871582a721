/**
 * A first boot that `kill -9`s itself at a chosen statement: it boots as `realmgate start` does
 * (migrations, bootstrap, listen), with a Kysely plugin that sends SIGKILL to its own process the
 * moment the database has answered the chosen statement — no handler runs, no transaction is
 * finished, nothing is flushed. Used by test/crash/crash.test.ts.
 *
 *   CRASH_AT=create:<n>         after the n-th schema statement (CREATE TABLE/INDEX of an auth_ table)
 *   CRASH_AT=insert:<table>:<n> after the n-th INSERT into <table>
 *
 * Run: CRASH_AT=… node --conditions=source --import tsx packages/server/test/crash-boot.script.ts
 */
import { CreateIndexNode, CreateTableNode, InsertQueryNode, type KyselyPlugin, type QueryId, type RootOperationNode } from 'kysely';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { openDatabase } from '../src/wire.js';

function matcherOf(spec: string): (node: RootOperationNode) => boolean {
    const [kind, table] = spec.split(':');
    if (kind === 'create') {
        return (node) => {
            const target = CreateTableNode.is(node) ? node.table : CreateIndexNode.is(node) ? node.table : undefined;
            return target?.table.identifier.name.startsWith('auth_') ?? false;
        };
    }
    if (kind === 'insert' && table) return (node) => InsertQueryNode.is(node) && node.into?.table.identifier.name === table;
    throw new Error(`CRASH_AT must be create:<n> or insert:<table>:<n>, not "${spec}"`);
}

function killAt(spec: string): KyselyPlugin {
    const matches = matcherOf(spec);
    const count = Number(spec.split(':').at(-1));
    if (!Number.isInteger(count) || count < 1) throw new Error(`CRASH_AT needs a count: "${spec}"`);
    let seen = 0;
    const fatal = new Set<QueryId>();
    return {
        transformQuery({ node, queryId }) {
            if (matches(node) && ++seen === count) fatal.add(queryId);
            return node;
        },
        async transformResult({ result, queryId }) {
            if (fatal.has(queryId)) process.kill(process.pid, 'SIGKILL');
            return result;
        },
    };
}

const config = loadConfig(process.env);
const handle = await openDatabase(config);
const app = await createApp(config, { handle: { ...handle, db: handle.db.withPlugin(killAt(process.env.CRASH_AT ?? '')) } });
await app.app.listen({ port: config.port, host: config.host });
