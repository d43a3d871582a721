import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAdmin, requireEnv, type TestDatabase } from '../../test/databases.js';
import { pgbouncerUnavailable, startPgBouncer } from '../../test/pgbouncer.js';
import { startSilentRelay } from '../../test/silent-relay.js';
import type { Bus, BusMessage } from './bus.js';
import { createPostgresBus, type PostgresBusOptions } from './postgres-bus.js';

/*
 * The bus across replicas without Redis: LISTEN/NOTIFY on a real PostgreSQL (TEST_POSTGRES_URL;
 * the file is left out of runs without one, vitest.config.ts), on a database of its own.
 */

/** Waits for `done` over a bounded number of short turns (delivery crosses PostgreSQL), never a verdict from the clock. */
async function until(done: () => boolean, turns = 1_000): Promise<void> {
    for (let attempt = 0; attempt < turns && !done(); attempt++) await new Promise((wake) => setTimeout(wake, 10));
    expect(done()).toBe(true);
}

/**
 * Probes ten times a second, each given 1.5 s, so a bus that stops hearing says so within a
 * couple of seconds; the timeout is the mechanism's own bound, not a verdict on how fast the
 * machine is, and every wait on it below is a bounded poll.
 */
const QUICK_PROBES = { probeIntervalMs: 100, probeTimeoutMs: 1_500, publishTimeoutMs: 1_500 };
/** the report of a bus that did not hear its own probe (postgres-bus.ts) */
const isDeaf = (context: string) => context.startsWith('bus did not hear its own probe');

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
    const recoveries: string[] = [];
    const bus = async (channel: string, settings: Partial<PostgresBusOptions> = {}) => {
        const created = await createPostgresBus({
            connection: { connectionString: database.location }, channel,
            report: (_error, context) => reports.push(context), recovered: (context) => recoveries.push(context),
            ...settings,
        });
        open.push(created);
        return created;
    };
    afterEach(async () => {
        await Promise.all(open.splice(0).map((created) => created.close()));
        reports.length = 0;
        recoveries.length = 0;
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

    it('is not live until its listener hears its own probe; one gone deaf is reported once, replaced, and live again after a resync; probes reach no subscriber', async () => {
        const channel = freshChannel();
        const listening: pg.Client[] = [];
        /** whether the bus was live when each listener had just LISTENed (before its first probe) */
        const liveAtListen: boolean[] = [];
        const created: { bus?: Bus } = {};
        const a = await bus(channel, {
            timing: QUICK_PROBES,
            afterListen: async (client) => {
                listening.push(client);
                liveAtListen.push(created.bus?.live ?? false);
                // the first listener hears nothing from the start, as one behind a transaction pooler
                if (listening.length === 1) await client.query('UNLISTEN *');
            },
        });
        created.bus = a;
        // the boot waited for the first probe, which the deaf listener did not hear
        expect(a.live).toBe(false);
        expect(reports.filter(isDeaf)).toHaveLength(1);
        expect(reports[0]).toMatch(/DB_BUS_URL.*REDIS_URL.*CACHES=off/);
        // and a listener that did not hear is not counted by the publishers (never named)
        expect(await listenersOf(channel)).toEqual([]);
        const heard: BusMessage[] = [];
        a.subscribe((message) => heard.push(message));
        // another replica of the channel, probing as well: its probes cross a's listener, and a's its
        const b = await bus(channel, { timing: QUICK_PROBES });
        const heardByB: BusMessage[] = [];
        b.subscribe((message) => heardByB.push(message));

        // a new listener replaced the deaf one; it heard its probe: a resync, then live, and named
        await until(() => a.live, 3_000);
        expect(listening.length).toBeGreaterThanOrEqual(2);
        expect(liveAtListen.every((live) => !live)).toBe(true);
        expect(heard).toEqual([{ kind: 'resync' }]);
        expect(recoveries).toEqual(['bus hears its own probe again; caches serve again']);
        expect(await listenersOf(channel)).toHaveLength(2);

        // the live listener goes deaf without its connection knowing (UNLISTEN on it): not live at its next probe
        const deafened = listening.length;
        await listening.at(-1)!.query('UNLISTEN *');
        await until(() => !a.live, 3_000);
        await until(() => a.live, 3_000);
        expect(listening.length).toBeGreaterThan(deafened);
        expect(liveAtListen.every((live) => !live)).toBe(true);
        expect(heard).toEqual([{ kind: 'resync' }, { kind: 'resync' }]);
        expect(reports.filter(isDeaf)).toHaveLength(2);
        expect(recoveries).toHaveLength(2);

        // a message crosses as ever; dozens of probes crossed too, and no subscriber heard one
        b.publish({ kind: 'catalog' });
        await until(() => heard.length === 3);
        expect(heard.at(-1)).toEqual({ kind: 'catalog' });
        expect(heardByB).toEqual([{ kind: 'catalog' }]);
        expect(reports.filter((context) => !isDeaf(context))).toEqual([]);
    });

    it('stops being live at its next probe when its network goes silent (no reset), and is live again, resynced, over new connections', async () => {
        const server = new URL(requireEnv('TEST_POSTGRES_URL'));
        const relay = await startSilentRelay(server.hostname, Number(server.port || 5432));
        try {
            const channel = freshChannel();
            const a = await bus(channel, { connection: { connectionString: relay.urlOf(database.location) }, timing: QUICK_PROBES });
            const b = await bus(channel);
            const heard: BusMessage[] = [];
            a.subscribe((message) => heard.push(message));
            expect(a.live).toBe(true);
            // the listener's connection and the sending pool's stay open, and nothing crosses them
            relay.freeze();
            await until(() => !a.live, 3_000);
            expect(reports.filter(isDeaf)).toHaveLength(1);
            // new connections through the relay: a new listener, and the sends that hung dropped from the pool
            await until(() => a.live, 3_000);
            expect(heard).toEqual([{ kind: 'resync' }]);
            expect(recoveries).toHaveLength(1);
            b.publish({ kind: 'catalog' });
            await until(() => heard.length === 2);
            expect(heard).toEqual([{ kind: 'resync' }, { kind: 'catalog' }]);
            // closed before the relay, whose end would otherwise cut a live bus
            await a.close();
        } finally {
            await relay.close();
        }
    });

    const bouncerUnavailable = pgbouncerUnavailable();
    it.skipIf(bouncerUnavailable !== undefined)(`LISTENs through PgBouncer in transaction pooling and hears nothing: never live, reported once, never counted; its sends still reach the others${bouncerUnavailable ? ` (skipped: ${bouncerUnavailable})` : ''}`, async () => {
        const bouncer = await startPgBouncer(requireEnv('TEST_POSTGRES_URL'), 2);
        try {
            const channel = freshChannel();
            let listened = 0;
            const pooled = await bus(channel, {
                connection: { connectionString: bouncer.urlOf(database.location) }, timing: QUICK_PROBES, afterListen: () => void listened++,
            });
            const direct = await bus(channel);
            const heard: Record<string, BusMessage[]> = { pooled: [], direct: [] };
            pooled.subscribe((message) => heard.pooled!.push(message));
            direct.subscribe((message) => heard.direct!.push(message));
            expect(pooled.live).toBe(false);
            expect(direct.live).toBe(true);
            // NOTIFY is transactional, so it works through the pooler: the direct replica hears the pooled one
            pooled.publish(entity('through-the-pooler'));
            await until(() => heard.direct!.length === 1);
            // the pooled listener never heard a probe, so it is not counted: the direct replica's write is not held for it
            await direct.publishSettled(entity('direct'));
            // it keeps replacing its listener, and says so once
            await until(() => listened >= 3, 3_000);
            expect(pooled.live).toBe(false);
            // its own publish, delivered here at once, and nothing it heard
            expect(heard.pooled).toEqual([entity('through-the-pooler')]);
            expect(reports.filter(isDeaf)).toHaveLength(1);
            expect(reports.filter((context) => !isDeaf(context))).toEqual([]);
            expect(recoveries).toEqual([]);
            await pooled.close();
        } finally {
            await bouncer.stop();
        }
    });
});
