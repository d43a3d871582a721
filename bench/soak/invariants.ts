/**
 * The soak's invariants (issue: "scale-out you can trust"), each a pure function of the recorded
 * log that returns its violations as sentences. A check is unit-tested with a log that violates it
 * (invariants.test.ts), so a check that cannot fail is caught.
 */
import { failed, type FaultWindow, type RequestRecord, type SoakLog } from './records.js';

export interface Invariant {
    name: string;
    check(log: SoakLog): string[];
}

const describe = (record: RequestRecord) =>
    `${record.operation}${record.replica ? ` at ${record.replica}` : ''} sent ${record.sentAt} ms answered ${record.status} at ${record.answeredAt} ms`;

const overlaps = (record: RequestRecord, window: FaultWindow) => record.sentAt <= window.end && record.answeredAt >= window.start;

/** Every write answered 201 is in the database afterwards. */
export const acknowledgedWritesKept: Invariant = {
    name: 'acknowledged-writes-kept',
    check: (log) => log.writes.filter((write) => !log.found.has(write.id))
        .map((write) => `${write.collection} ${write.id} acknowledged at ${write.acknowledgedAt} ms is missing`),
};

/** A refresh token is redeemed at most once (RFC 9700 §4.14.2, refresh token rotation). */
export const refreshRedeemedOnce: Invariant = {
    name: 'refresh-redeemed-at-most-once',
    check(log) {
        const redeemed = new Map<string, number>();
        for (const record of log.requests) {
            if (record.refresh && record.accepted) redeemed.set(record.refresh.token, (redeemed.get(record.refresh.token) ?? 0) + 1);
        }
        return [...redeemed].filter(([, times]) => times > 1).map(([token, times]) => `refresh token …${token.slice(-8)} redeemed ${times} times`);
    },
};

/**
 * A replayed refresh token (one already redeemed) is refused, and from the replay's answer on no
 * token of its family is honoured (RFC 9700 §4.14.2: the authorization server revokes the family).
 */
export const replayKillsFamily: Invariant = {
    name: 'replay-kills-family',
    check(log) {
        const violations: string[] = [];
        const refreshes = log.requests.filter((record) => record.refresh);
        const firstRedemption = new Map<string, number>();
        for (const record of refreshes) {
            if (record.accepted && !firstRedemption.has(record.refresh!.token)) firstRedemption.set(record.refresh!.token, record.answeredAt);
        }
        for (const replay of refreshes) {
            const redeemedAt = firstRedemption.get(replay.refresh!.token);
            // a replay: the token's redemption had been answered before this request left
            if (redeemedAt === undefined || redeemedAt >= replay.sentAt) continue;
            if (replay.accepted) violations.push(`replayed token of family ${replay.refresh!.family} honoured: ${describe(replay)}`);
            for (const later of refreshes) {
                if (later.refresh!.family === replay.refresh!.family && later.sentAt > replay.answeredAt && later.accepted) {
                    violations.push(`family ${later.refresh!.family} honoured after its replay was answered: ${describe(later)}`);
                }
            }
        }
        return violations;
    },
};

/**
 * Every token of a deactivated user, a revoked session or a deleted signing key is refused by
 * every replica from the first request sent after the acknowledgement.
 */
export const revocationsHonoured: Invariant = {
    name: 'revocations-honoured-everywhere',
    check(log) {
        const violations: string[] = [];
        for (const revocation of log.revocations) {
            const owns = (record: RequestRecord) => {
                const token = record.token;
                if (!token) return false;
                if (revocation.kind === 'user-deactivated') return token.userId === revocation.id;
                if (revocation.kind === 'session-revoked') return token.sessionId === revocation.id;
                return token.kid === revocation.id;
            };
            for (const record of log.requests) {
                if (record.accepted && record.sentAt > revocation.acknowledgedAt && owns(record)) {
                    violations.push(`${revocation.kind} ${revocation.id} (acknowledged at ${revocation.acknowledgedAt} ms) honoured: ${describe(record)}`);
                }
            }
        }
        return violations;
    },
};

/**
 * The faults that may cost the requests in flight: a kill -9 of a replica (from the signal until
 * HAProxy took it out of rotation), and the termination of a replica's database connections (the
 * queries running on them fail; the pool replaces the connections for the next ones).
 */
const KILLS: readonly FaultWindow['name'][] = ['kill', 'db-connections-terminated'];
const inKillWindow = (log: SoakLog, record: RequestRecord) =>
    log.faults.some((fault) => KILLS.includes(fault.name) && overlaps(record, fault));

/** No answer ≥ 500 (nor a missing answer) except for a request in flight during a kill. */
export const noFailureOutsideKill: Invariant = {
    name: 'no-failure-outside-kill-window',
    check: (log) => log.requests.filter((record) => failed(record) && !inKillWindow(log, record)).map(describe),
};

/** None at all during the rolling restart: a replica leaving drains first (SHUTDOWN_DRAIN_MS). */
export const noFailureInRollingRestart: Invariant = {
    name: 'no-failure-during-rolling-restart',
    check(log) {
        const restarts = log.faults.filter((fault) => fault.name === 'rolling-restart');
        return log.requests.filter((record) => failed(record) && restarts.some((window) => overlaps(record, window)) && !inKillWindow(log, record)).map(describe);
    },
};

export const INVARIANTS: readonly Invariant[] = [
    acknowledgedWritesKept, refreshRedeemedOnce, replayKillsFamily, revocationsHonoured, noFailureOutsideKill, noFailureInRollingRestart,
];

export interface Verdict {
    name: string;
    violations: string[];
}

export function judge(log: SoakLog, invariants: readonly Invariant[] = INVARIANTS): Verdict[] {
    return invariants.map((invariant) => ({ name: invariant.name, violations: invariant.check(log) }));
}

/** The report's last line: `invariants: all held`, or `invariants: N violated` and their names. */
export function verdictLine(verdicts: readonly Verdict[]): string {
    const violated = verdicts.filter((verdict) => verdict.violations.length > 0);
    return violated.length === 0 ? 'invariants: all held' : `invariants: ${violated.length} violated ${violated.map((verdict) => verdict.name).join(', ')}`;
}
