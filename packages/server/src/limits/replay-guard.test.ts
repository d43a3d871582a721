import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedTestDatabase } from '../../test/database-templates.js';
import { describeEachDialect, type TestDatabase } from '../../test/databases.js';
import { recordIdentifier } from '../storage/replay-guards.js';
import { createRecordingReplayGuard, createRedisReplayGuard, replayKey, type ReplayGuard, type ReplayIdentifier } from './replay-guard.js';
import { createRedisCounterStore } from './redis-counter-store.js';

const identifier = (overrides: Partial<ReplayIdentifier> = {}): ReplayIdentifier => ({
    kind: 'client_assertion', realmId: randomUUID(), issuer: randomUUID(), jti: randomUUID(), ...overrides,
});
const inAMinute = () => new Date(Date.now() + 60_000);

/** What every guard must answer: the first claim true, every replay false, other identifiers apart. */
function itGuards(guard: () => ReplayGuard): void {
    it('answers true the first time and false for every replay, concurrent ones included', async () => {
        const id = identifier();
        expect(await guard().claim(id, inAMinute())).toBe(true);
        expect(await guard().claim(id, inAMinute())).toBe(false);
        const raced = identifier();
        const answers = await Promise.all(Array.from({ length: 8 }, () => guard().claim(raced, inAMinute())));
        expect(answers.filter(Boolean)).toHaveLength(1);
    });

    it('keeps the kinds, realms and issuers of one jti apart', async () => {
        const id = identifier();
        expect(await guard().claim(id, inAMinute())).toBe(true);
        expect(await guard().claim({ ...id, kind: 'dpop_proof' }, inAMinute())).toBe(true);
        expect(await guard().claim({ ...id, realmId: randomUUID() }, inAMinute())).toBe(true);
        expect(await guard().claim({ ...id, issuer: randomUUID() }, inAMinute())).toBe(true);
    });
}

describeEachDialect('replay guard on the database (storage/replay-guards.ts)', (dialect) => {
    let database: TestDatabase;
    beforeAll(async () => {
        database = await createMigratedTestDatabase(dialect);
    }, 60_000);
    afterAll(async () => database?.drop());
    const guard = () => createRecordingReplayGuard((key, expiresAt) => recordIdentifier(database.db, dialect, key, expiresAt));

    itGuards(guard);

    it('stores a digest of the identifier, never the client id or jti', async () => {
        const id = identifier({ jti: 'visible-jti-value' });
        await guard().claim(id, inAMinute());
        const rows = await database.db.selectFrom('auth_replay_guards').select('id').where('id', '=', replayKey(id)).execute();
        expect(rows).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    });

    it('two guards on one database (two replicas) refuse each other\'s identifiers', async () => {
        const id = identifier();
        expect(await guard().claim(id, inAMinute())).toBe(true);
        expect(await guard().claim(id, inAMinute())).toBe(false);
    });
});

describe.runIf(process.env.TEST_REDIS_URL)('replay guard on Redis, the database deciding while Redis does not answer', () => {
    let database: TestDatabase;
    let redis: Awaited<ReturnType<typeof createRedisCounterStore>>;
    const prefix = `realmgate:test:${randomUUID()}:`;
    const outages: unknown[] = [];
    beforeAll(async () => {
        database = await createMigratedTestDatabase('sqlite');
        redis = await createRedisCounterStore(process.env.TEST_REDIS_URL!);
    }, 60_000);
    afterAll(async () => {
        await redis?.close();
        await database?.drop();
    });
    const fallback = () => createRecordingReplayGuard((key, expiresAt) => recordIdentifier(database.db, 'sqlite', key, expiresAt));
    const guard = () => createRedisReplayGuard(redis, prefix, fallback(), (error) => outages.push(error));

    itGuards(guard);

    it('claims in Redis (nothing written to the database) with the identifier\'s lifetime', async () => {
        const id = identifier();
        const before = await database.db.selectFrom('auth_replay_guards').select('id').execute();
        expect(await guard().claim(id, new Date(Date.now() + 30_000))).toBe(true);
        expect(await database.db.selectFrom('auth_replay_guards').select('id').execute()).toEqual(before);
        const { Redis } = await import('ioredis');
        const client = new Redis(process.env.TEST_REDIS_URL!);
        try {
            const ttl = await client.pttl(`${prefix}replay:${replayKey(id)}`);
            expect(ttl).toBeGreaterThan(0);
            expect(ttl).toBeLessThanOrEqual(30_000);
        } finally {
            client.disconnect();
        }
    });

    it('falls back to the database when Redis does not answer, reporting the outage once, and refuses replays there', async () => {
        const unreachable = { setIfAbsent: () => Promise.reject(new Error('connection refused')) };
        const down = createRedisReplayGuard(unreachable, prefix, fallback(), (error) => outages.push(error));
        const id = identifier();
        const reported = outages.length;
        expect(await down.claim(id, inAMinute())).toBe(true);
        expect(await down.claim(id, inAMinute())).toBe(false);
        expect(outages.length).toBe(reported + 1);
        // another replica, on the same database during the outage, refuses it too
        expect(await fallback().claim(id, inAMinute())).toBe(false);
    });
});
