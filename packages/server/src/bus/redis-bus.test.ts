import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bus, BusMessage } from './bus.js';
import { createRedisBus } from './redis-bus.js';

/*
 * The bus across replicas (the realtime bus) against a real Redis (TEST_REDIS_URL; the file is left
 * out of runs without one, vitest.config.ts).
 */
const url = process.env.TEST_REDIS_URL!;

/** Waits for `done` over a bounded number of short turns (delivery crosses Redis), never a verdict from the clock. */
async function until(done: () => boolean): Promise<void> {
    for (let attempt = 0; attempt < 300 && !done(); attempt++) await new Promise((wake) => setTimeout(wake, 10));
    expect(done()).toBe(true);
}

const entity = (id: string): BusMessage => ({
    kind: 'entity', event: { name: 'user.created', entity: 'user', id, realmId: null, data: { id, name: 'n' }, createdAt: '2026-11-24T12:00:00.000Z' },
});

describe('the Redis bus', () => {
    const open: Bus[] = [];
    const reports: string[] = [];
    const bus = async (channel: string) => {
        const created = await createRedisBus({ url, channel, report: (_error, context) => reports.push(context) });
        open.push(created);
        return created;
    };
    afterEach(async () => {
        await Promise.all(open.splice(0).map((created) => created.close()));
        reports.length = 0;
    });

    it('delivers a publish here at once and on every other replica of the channel once; other channels hear nothing', async () => {
        const channel = `test:bus:${randomUUID()}`;
        const [a, b, other] = [await bus(channel), await bus(channel), await bus(`test:bus:${randomUUID()}`)];
        const heard: Record<string, BusMessage[]> = { a: [], b: [], other: [] };
        a.subscribe((message) => heard.a!.push(message));
        b.subscribe((message) => heard.b!.push(message));
        other.subscribe((message) => heard.other!.push(message));
        a.publish(entity('one'));
        // the publishing replica's own listeners first, without waiting for Redis
        expect(heard.a).toEqual([entity('one')]);
        await until(() => heard.b!.length === 1);
        b.publish({ kind: 'catalog' });
        await until(() => heard.a!.length === 2);
        // a barrier on the other channel: once it arrived there, nothing of ours would be pending
        other.publish(entity('marker'));
        await until(() => heard.other!.length === 1);
        expect(heard.a).toEqual([entity('one'), { kind: 'catalog' }]);
        expect(heard.b).toEqual([entity('one'), { kind: 'catalog' }]);
        expect(heard.other).toEqual([entity('marker')]);
        expect(a.shared).toBe(true);
    });

    it('tells its listeners to resync after its subscription was lost, and ignores what is not its message', async () => {
        const channel = `test:bus:${randomUUID()}`;
        const a = await bus(channel);
        const heard: BusMessage[] = [];
        a.subscribe((message) => heard.push(message));
        const admin = new Redis(url);
        try {
            await admin.publish(channel, 'not json');
            await admin.publish(channel, JSON.stringify({ origin: 'elsewhere', message: { nothing: true } }));
            await until(() => reports.includes('bus message is not JSON'));
            // the server drops the subscriber connection (a Redis restart, a network cut): pub/sub kept nothing for it
            const clients = (await admin.client('LIST') as string).split('\n').filter((line) => line.includes(`name=sub:${channel} `));
            expect(clients).toHaveLength(1);
            await admin.client('KILL', 'ID', /id=(\d+)/.exec(clients[0]!)![1]!);
            await until(() => heard.some((message) => message.kind === 'resync'));
            // and it hears the channel again
            await admin.publish(channel, JSON.stringify({ origin: 'elsewhere', message: { kind: 'catalog' } }));
            await until(() => heard.some((message) => message.kind === 'catalog'));
            expect(heard.filter((message) => message.kind !== 'resync' && message.kind !== 'catalog')).toEqual([]);
        } finally {
            admin.disconnect();
        }
    });

    it('settles a publish only once every other replica of the channel delivered it (caches emptied before a write answers)', async () => {
        const channel = `test:bus:${randomUUID()}`;
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
        const alone = await bus(`test:bus:${randomUUID()}`);
        await alone.publishSettled(entity('alone'));
        expect(reports).toEqual([]);
    });

    it('is not live while its subscription is lost, and live again once it resynced', async () => {
        const channel = `test:bus:${randomUUID()}`;
        const a = await bus(channel);
        const heard: BusMessage[] = [];
        a.subscribe((message) => heard.push(message));
        expect(a.live).toBe(true);
        const admin = new Redis(url);
        try {
            let lostSeen = false;
            const clients = (await admin.client('LIST') as string).split('\n').filter((line) => line.includes(`name=sub:${channel} `));
            await admin.client('KILL', 'ID', /id=(\d+)/.exec(clients[0]!)![1]!);
            await until(() => {
                if (!a.live) lostSeen = true;
                return heard.some((message) => message.kind === 'resync');
            });
            expect(lostSeen).toBe(true);
            expect(a.live).toBe(true);
        } finally {
            admin.disconnect();
        }
    });

    it('stops the boot with a message naming REDIS_URL when Redis cannot be reached', async () => {
        await expect(createRedisBus({ url: 'redis://127.0.0.1:1', channel: 'x', report: () => undefined })).rejects.toThrow(/REDIS_URL: the bus cannot be reached/);
    });
});
