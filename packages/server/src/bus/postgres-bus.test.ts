import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAdmin, requireEnv, type TestDatabase } from '../../test/databases.js';
import type { Bus, BusMessage } from './bus.js';
import { createPostgresBus } from './postgres-bus.js';

/*
 * The bus across replicas without Redis: LISTEN/NOTIFY on a real PostgreSQL (TEST_POSTGRES_URL;
 * the file is left out of runs without one, vitest.config.ts), on a database of its own.
 */

/** Waits for `done` over a bounded number of short turns (delivery crosses PostgreSQL), never a verdict from the clock. */
async function until(done: () => boolean): Promise<void> {
    for (let attempt = 0; attempt < 1_000 && !done(); attempt++) await new Promise((wake) => setTimeout(wake, 10));
    expect(done()).toBe(true);
}

const entity = (id: string, data: Record<string, unknown> = { id, name: 'n' }): BusMessage => ({
    kind: 'entity', event: { name: 'user.created', entity: 'user', id, realmId: null, data, createdAt: '2026-11-24T12:00:00.000Z' },
});

const freshChannel = () => `test_bus_${randomBytes(6).toString('hex')}`;

describe('the PostgreSQL bus', () => {
    let database: TestDatabase;
    /** a connection of the test's own on the bus's database: NOTIFY from outside, pg_stat_activity, terminations */
    let admin: pg.Client;
    beforeAll(async () => {
        database = await createTestDatabase('postgres');
        admin = new pg.Client({ connectionString: database.location });
        await admin.connect();
    });
    afterAll(async () => {
        await admin?.end();
        await database?.drop();
    });

    const open: Bus[] = [];
    const reports: string[] = [];
    const bus = async (channel: string) => {
        const created = await createPostgresBus({ connection: { connectionString: database.location }, channel, report: (_error, context) => reports.push(context) });
        open.push(created);
        return created;
    };
    afterEach(async () => {
        await Promise.all(open.splice(0).map((created) => created.close()));
        reports.length = 0;
    });

    /** the listening backends of `channel` (named `<channel>:<pid>`) */
    const listenersOf = async (channel: string) =>
        (await admin.query<{ pid: number; application_name: string }>(
            'select pid, application_name from pg_stat_activity where datname = current_database() and application_name like $1',
            [`${channel}:%`],
        )).rows;
    /** ends the listening connections of `channel` from the server side (a restart, a network cut) */
    const terminateListeners = async (channel: string) => {
        const listening = await listenersOf(channel);
        expect(listening.length).toBeGreaterThan(0);
        for (const { pid } of listening) await admin.query('select pg_terminate_backend($1)', [pid]);
    };

    it('delivers a publish here at once and on every other replica of the channel once; other channels hear nothing', async () => {
        const channel = freshChannel();
        const [a, b, other] = [await bus(channel), await bus(channel), await bus(freshChannel())];
        const heard: Record<string, BusMessage[]> = { a: [], b: [], other: [] };
        a.subscribe((message) => heard.a!.push(message));
        b.subscribe((message) => heard.b!.push(message));
        other.subscribe((message) => heard.other!.push(message));
        a.publish(entity('one'));
        // the publishing replica's own listeners first, without waiting for PostgreSQL
        expect(heard.a).toEqual([entity('one')]);
        await until(() => heard.b!.length === 1);
        b.publish({ kind: 'catalog' });
        await until(() => heard.a!.length === 2);
        // a barrier on the other channel: NOTIFYs are delivered in commit order, so nothing of ours is pending once it arrived
        other.publish(entity('marker'));
        await until(() => heard.other!.length === 1);
        expect(heard.a).toEqual([entity('one'), { kind: 'catalog' }]);
        expect(heard.b).toEqual([entity('one'), { kind: 'catalog' }]);
        expect(heard.other).toEqual([entity('marker')]);
        expect(a.shared).toBe(true);
        expect(a.live).toBe(true);
        // each listener is named after its channel and process, so an operator (and the publishers' count) finds it
        expect((await listenersOf(channel)).map((row) => row.application_name)).toEqual([`${channel}:${process.pid}`, `${channel}:${process.pid}`]);
        expect(reports).toEqual([]);
    });

    it('tells its listeners to resync once it listens again after its connection was cut, and ignores what is not its message', async () => {
        const channel = freshChannel();
        const a = await bus(channel);
        const heard: BusMessage[] = [];
        a.subscribe((message) => heard.push(message));
        await admin.query('select pg_notify($1, $2)', [channel, 'not json']);
        await admin.query('select pg_notify($1, $2)', [channel, JSON.stringify({ origin: 'elsewhere', message: { nothing: true } })]);
        await admin.query('select pg_notify($1, $2)', [`${channel}_ack`, 'null']);
        await until(() => reports.includes('bus message is not JSON'));
        const before = await listenersOf(channel);
        await terminateListeners(channel);
        await until(() => heard.some((message) => message.kind === 'resync'));
        expect(reports).toContain('bus listening connection lost; caches serve nothing until it listens again');
        // a new backend listens, under the same name
        const after = await listenersOf(channel);
        expect(after).toHaveLength(1);
        expect(after[0]!.pid).not.toBe(before[0]!.pid);
        // and it hears the channel again
        await admin.query('select pg_notify($1, $2)', [channel, JSON.stringify({ origin: 'elsewhere', message: { kind: 'catalog' } })]);
        await until(() => heard.some((message) => message.kind === 'catalog'));
        expect(heard).toEqual([{ kind: 'resync' }, { kind: 'catalog' }]);
    });

    it('settles a publish only once every other replica of the channel delivered it (caches emptied before a write answers)', async () => {
        const channel = freshChannel();
        const [a, b, c] = [await bus(channel), await bus(channel), await bus(channel)];
        const heard: Record<string, BusMessage[]> = { a: [], b: [], c: [] };
        a.subscribe((message) => heard.a!.push(message));
        b.subscribe((message) => heard.b!.push(message));
        c.subscribe((message) => heard.c!.push(message));
        for (let round = 0; round < 20; round++) {
            await a.publishSettled(entity(`settled-${round}`));
            // no waiting here: the settled publish returned after b and c had delivered it
            expect(heard.b!.at(-1), `round ${round}`).toEqual(entity(`settled-${round}`));
            expect(heard.c!.at(-1), `round ${round}`).toEqual(entity(`settled-${round}`));
        }
        expect(heard.a).toHaveLength(20);
        expect(reports).toEqual([]);
        // alone on its channel, it settles at once
        const alone = await bus(freshChannel());
        await alone.publishSettled(entity('alone'));
        expect(reports).toEqual([]);
    });

    it('is not live while it cannot listen, retries without failing, and is live again once it resynced', async () => {
        const channel = freshChannel();
        const a = await bus(channel);
        const heard: BusMessage[] = [];
        a.subscribe((message) => heard.push(message));
        expect(a.live).toBe(true);
        // the database refuses new connections (superusers included, from another database): the
        // listener stays down until they are allowed again
        const allowConnections = (allow: boolean) =>
            postgresAdmin(requireEnv('TEST_POSTGRES_URL'), `ALTER DATABASE "${new URL(database.location).pathname.slice(1)}" ALLOW_CONNECTIONS ${allow}`);
        await allowConnections(false);
        try {
            await terminateListeners(channel);
            await until(() => reports.filter((context) => context === 'bus reconnection failed; retrying').length >= 2);
            expect(a.live).toBe(false);
            expect(heard).toEqual([]);
        } finally {
            await allowConnections(true);
        }
        await until(() => heard.length > 0);
        expect(heard).toEqual([{ kind: 'resync' }]);
        expect(a.live).toBe(true);
    });

    it('sends a message too large for NOTIFY to the other replicas as a resync, settled all the same', async () => {
        const channel = freshChannel();
        const [a, b] = [await bus(channel), await bus(channel)];
        const heard: Record<string, BusMessage[]> = { a: [], b: [] };
        a.subscribe((message) => heard.a!.push(message));
        b.subscribe((message) => heard.b!.push(message));
        // multi-byte characters: the limit is in bytes (2 bytes each here, 4 500 characters)
        const large = entity('large', { id: 'large', description: 'é'.repeat(4_500) });
        await a.publishSettled(large);
        expect(heard.a).toEqual([large]);
        expect(heard.b).toEqual([{ kind: 'resync' }]);
        expect(reports).toEqual(['bus message too large; the other replicas resync instead']);
        // just under the limit, the message itself crosses
        const small = entity('small', { id: 'small', description: 'x'.repeat(7_000) });
        await a.publishSettled(small);
        expect(heard.b).toEqual([{ kind: 'resync' }, small]);
    });

    it('refuses a channel that is not a plain identifier, and stops the boot when it cannot LISTEN', async () => {
        await expect(createPostgresBus({ connection: { connectionString: database.location }, channel: 'Bad-Channel', report: () => undefined })).rejects.toThrow(/is not a lowercase identifier/);
        await expect(createPostgresBus({ connection: { connectionString: 'postgres://postgres@127.0.0.1:1/none' }, channel: 'x', report: () => undefined }))
            .rejects.toThrow(/the bus cannot LISTEN on the PostgreSQL database/);
    });
});
