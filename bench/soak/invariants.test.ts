import { describe, expect, it } from 'vitest';
import {
    acknowledgedWritesKept, INVARIANTS, judge, noFailureInRollingRestart, noFailureOutsideKill, refreshRedeemedOnce,
    replayKillsFamily, revocationsHonoured, verdictLine, type Invariant,
} from './invariants.js';
import type { RequestRecord, SoakLog } from './records.js';
import { figuresOf } from './report.js';

/** A recorded log that holds every invariant; each test breaks one on purpose. */
function cleanLog(): SoakLog {
    const requests: RequestRecord[] = [
        { operation: 'refresh', sentAt: 10, answeredAt: 20, status: 200, accepted: true, refresh: { token: 'r1', family: 's1', replay: false }, token: { userId: 'u1', sessionId: 's1' } },
        // the replay of r1 is refused, and the family's current token after it
        { operation: 'refresh', sentAt: 30, answeredAt: 40, status: 400, accepted: false, refresh: { token: 'r1', family: 's1', replay: true }, token: { userId: 'u1', sessionId: 's1' } },
        { operation: 'refresh', sentAt: 50, answeredAt: 60, status: 400, accepted: false, refresh: { token: 'r2', family: 's1', replay: false }, token: { userId: 'u1', sessionId: 's1' } },
        // the victim's token honoured before the deactivation, refused after it on a replica
        { operation: 'bearer-read', sentAt: 70, answeredAt: 80, status: 200, accepted: true, token: { userId: 'victim', sessionId: 's2', kid: 'k1' } },
        { operation: 'probe', sentAt: 101, answeredAt: 110, status: 401, accepted: false, replica: 'r2', token: { userId: 'victim', sessionId: 's2', kid: 'k1' } },
        // a failure inside the kill window only
        { operation: 'sign-in', sentAt: 300, answeredAt: 320, status: 502 },
        { operation: 'client-credentials', sentAt: 410, answeredAt: 420, status: 200 },
    ];
    return {
        requests,
        faults: [{ name: 'rolling-restart', start: 400, end: 500 }, { name: 'kill', start: 310, end: 350 }],
        revocations: [{ kind: 'user-deactivated', id: 'victim', acknowledgedAt: 100 }],
        writes: [{ collection: 'roles', id: 'w1', acknowledgedAt: 5 }],
        found: new Set(['w1']),
        phases: [{ name: 'all', start: 0, end: 1000 }],
    };
}

const violationsOf = (invariant: Invariant, log: SoakLog) => invariant.check(log);

describe('soak invariants', () => {
    it('all hold on a clean recorded log, and the report line says so', () => {
        const verdicts = judge(cleanLog());
        expect(verdicts.map((verdict) => verdict.violations)).toEqual(INVARIANTS.map(() => []));
        expect(verdictLine(verdicts)).toBe('invariants: all held');
    });

    it('an acknowledged write missing from the database is lost', () => {
        const log = { ...cleanLog(), found: new Set<string>() };
        expect(violationsOf(acknowledgedWritesKept, log)).toEqual(['roles w1 acknowledged at 5 ms is missing']);
    });

    it('a refresh token honoured twice is redeemed more than once', () => {
        const log = cleanLog();
        log.requests.push({ operation: 'refresh', sentAt: 15, answeredAt: 25, status: 200, accepted: true, refresh: { token: 'r1', family: 's1', replay: false } });
        expect(violationsOf(refreshRedeemedOnce, log)).toHaveLength(1);
    });

    it('a replay honoured, or the family honoured after the replay, breaks replay-kills-family', () => {
        const honouredReplay = cleanLog();
        honouredReplay.requests[1] = { ...honouredReplay.requests[1]!, status: 200, accepted: true };
        expect(violationsOf(replayKillsFamily, honouredReplay).some((line) => line.startsWith('replayed token'))).toBe(true);
        const familyAlive = cleanLog();
        familyAlive.requests[2] = { ...familyAlive.requests[2]!, status: 200, accepted: true };
        expect(violationsOf(replayKillsFamily, familyAlive)).toHaveLength(1);
    });

    it('a token of a deactivated user, revoked session or deleted key honoured after the acknowledgement', () => {
        const user = cleanLog();
        user.requests[4] = { ...user.requests[4]!, status: 200, accepted: true };
        expect(violationsOf(revocationsHonoured, user)).toHaveLength(1);
        for (const revocation of [{ kind: 'session-revoked' as const, id: 's2' }, { kind: 'key-deleted' as const, id: 'k1' }]) {
            const log = cleanLog();
            log.revocations = [{ ...revocation, acknowledgedAt: 100 }];
            log.requests.push({ operation: 'introspection', sentAt: 120, answeredAt: 130, status: 200, accepted: true, token: { userId: 'u9', sessionId: 's2', kid: 'k1' } });
            expect(violationsOf(revocationsHonoured, log), revocation.kind).toHaveLength(1);
        }
        // honoured before the acknowledgement is no violation
        expect(violationsOf(revocationsHonoured, cleanLog())).toEqual([]);
    });

    it('a failure outside a kill window, and one during the rolling restart', () => {
        const outside = cleanLog();
        outside.requests.push({ operation: 'bearer-read', sentAt: 600, answeredAt: 610, status: 503 });
        expect(violationsOf(noFailureOutsideKill, outside)).toHaveLength(1);
        const unanswered = cleanLog();
        unanswered.requests.push({ operation: 'admin-write', sentAt: 430, answeredAt: 440, status: 0 });
        expect(violationsOf(noFailureInRollingRestart, unanswered)).toHaveLength(1);
        expect(verdictLine(judge(unanswered))).toBe('invariants: 2 violated no-failure-outside-kill-window, no-failure-during-rolling-restart');
    });

    it('a connection-termination window excuses only the requests in flight during it', () => {
        const log = cleanLog();
        log.faults.push({ name: 'db-connections-terminated', start: 700, end: 710 });
        log.requests.push({ operation: 'introspection', sentAt: 705, answeredAt: 720, status: 500 });
        expect(violationsOf(noFailureOutsideKill, log)).toEqual([]);
        log.requests.push({ operation: 'introspection', sentAt: 711, answeredAt: 720, status: 500 });
        expect(violationsOf(noFailureOutsideKill, log)).toHaveLength(1);
    });
});

describe('soak report figures', () => {
    it('counts the load of a phase (probes excluded): failures, refusals, percentiles and throughput', () => {
        const figures = figuresOf({ name: 'all', start: 0, end: 1000 }, cleanLog().requests);
        expect(figures).toMatchObject({ requests: 6, failed: 1, refused: 2, seconds: 1, throughput: 6, p50: 10, p99: 20 });
    });
});
