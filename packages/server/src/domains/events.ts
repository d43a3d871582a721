import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { insertEvent } from '../storage/events.js';
import { announceAfterCommit } from '../storage/write-transaction.js';
import { toDbDate, type DialectName } from '../db/values.js';
import type { RequestContext } from '../authz/request-context.js';

export interface EventInput {
    name: string;
    refType: string;
    refId: string | null;
    realmId: string | null;
    /** never a withheld column (spec Events 5): callers pass the default-read record only */
    data?: Record<string, unknown> | null;
}

/** Write one event row in the caller's transaction, so an event exists exactly when its change does. */
export async function recordEvent(
    db: Kysely<Database>,
    dialect: DialectName,
    ctx: RequestContext | null,
    event: EventInput,
): Promise<void> {
    const createdAt = new Date();
    await insertEvent(db, {
        id: randomUUID(),
        name: event.name,
        scope: 'api',
        ref_type: event.refType,
        ref_id: event.refId,
        actor_type: ctx?.actor.identity?.type ?? null,
        actor_id: ctx?.actor.identity?.id ?? null,
        realm_id: event.realmId,
        request_ip: ctx?.request.ip ?? null,
        request_method: ctx?.request.method ?? null,
        request_path: ctx?.request.path ?? null,
        data: event.data ? JSON.stringify(event.data) : null,
        created_at: toDbDate(dialect, createdAt),
    });
    // the realtime bus hears of it once the change is committed (issue 15 item 5)
    announceAfterCommit(db, { name: event.name, refType: event.refType, refId: event.refId, realmId: event.realmId, data: event.data ?? null, createdAt });
}
