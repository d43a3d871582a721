import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { deleteExpiredBatch, deleteExpiredSessionsBatch, type ExpiringTable } from '../storage/sweeps.js';
import { fillEventAggregates, sweepEventRetention, type EventMaintenanceDeps } from '../domains/event-log/maintenance.js';

/** What a sweep pass gets: the database and the instant the pass counts as (a controllable clock in tests). */
export interface SweepContext {
    db: Kysely<Database>;
    dialect: DialectName;
    now: Date;
}

/** A background task of the worker (the worker role; spec beta.64 item 5, Limits): run once a minute under its own lease. */
export interface Sweep {
    /** the lease name (auth_worker_leases.name, at most 64 characters) and the health report's key */
    name: string;
    /** one pass; resolves with the rows it removed or wrote, for the log */
    run(context: SweepContext): Promise<number>;
}

/** Rows one statement deletes; small enough that a batch holds its locks only briefly. */
const SWEEP_BATCH = 500;

/** Batches one pass runs at most: a backlog is worked off over several passes, never in one long one. */
const SWEEP_MAX_BATCHES = 100;

/** Deletes in bounded batches until a batch comes back short or the pass has run its batches. */
async function inBatches(batch: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (let round = 0; round < SWEEP_MAX_BATCHES; round++) {
        const deleted = await batch(SWEEP_BATCH);
        total += deleted;
        if (deleted < SWEEP_BATCH) break;
    }
    return total;
}

function expiredRows(name: string, table: ExpiringTable): Sweep {
    return { name, run: ({ db, dialect, now }) => inBatches((limit) => deleteExpiredBatch(db, dialect, table, now, limit)) };
}

/**
 * THE SWEEP REGISTRY: every background task the worker runs, by name, in one list: the expired
 * rows here, and (sweepsOf) the event log's retention and daily aggregates, which need the
 * retention settings.
 */
export const SWEEPS: readonly Sweep[] = [
    { name: 'expired-sessions', run: ({ db, dialect, now }) => inBatches((limit) => deleteExpiredSessionsBatch(db, dialect, now, limit)) },
    expiredRows('expired-session-tokens', 'auth_session_tokens'),
    // spec Authentication 12: codes expire after 5 minutes; a used code is kept until then so a replay is recognised
    expiredRows('expired-authorization-codes', 'auth_authorization_codes'),
    // RFC 8628 §3.2 expires_in
    expiredRows('expired-device-codes', 'auth_device_codes'),
    expiredRows('expired-mfa-tickets', 'auth_mfa_tickets'),
    // upstream identity-provider round trips never completed (their state, nonce and PKCE verifier)
    expiredRows('expired-federated-logins', 'auth_federated_logins'),
    // single-use identifiers past the lifetime of what carried them (limits/replay-guard.ts)
    expiredRows('expired-replay-guards', 'auth_replay_guards'),
    // RFC 7591 §1.2: an expired initial access token authorizes nothing more
    expiredRows('expired-initial-access-tokens', 'auth_initial_access_tokens'),
    // RFC 9126 §2.2: pushed requests never redeemed within their lifetime
    expiredRows('expired-pushed-requests', 'auth_pushed_requests'),
    // WebAuthn §13.4.3: challenges no ceremony spent within their lifetime
    expiredRows('expired-webauthn-challenges', 'auth_webauthn_challenges'),
];

/**
 * Every sweep of a deployment: the expired rows, then the event log's (spec Events 1–3) — its
 * retention (`EVENT_LOG_RETENTION_DAYS`, `EVENT_LOG_AGGREGATE_RETENTION_DAYS`) and the daily
 * aggregates, adding the events written since the previous pass (bounded transactions) and
 * backfilling seven older days a pass.
 */
export function sweepsOf(retention: EventMaintenanceDeps['config']): readonly Sweep[] {
    const deps = ({ db, dialect }: SweepContext): EventMaintenanceDeps => ({ db, handle: { dialect }, config: retention });
    return [
        ...SWEEPS,
        { name: 'event-retention', run: async (context) => {
            const removed = await sweepEventRetention(deps(context), context.now);
            return removed.events + removed.aggregates;
        } },
        { name: 'event-aggregates', run: async (context) => (await fillEventAggregates(deps(context), context.now)).length },
    ];
}
