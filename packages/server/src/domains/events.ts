import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { eventRowOf, insertEvents, type NewEvent } from '../storage/events.js';
import type { DialectName } from '../db/values.js';
import { announceAfterCommit } from '../storage/write-transaction.js';
import type { RequestContext } from '../authz/request-context.js';

export type EventInput = Pick<NewEvent, 'name' | 'refType' | 'refId' | 'realmId' | 'data'>;

/** Write one event row in the caller's transaction, so an event exists exactly when its change does. */
export async function recordEvent(
    db: Kysely<Database>,
    dialect: DialectName,
    ctx: RequestContext | null,
    event: EventInput,
): Promise<void> {
    await insertEvents(db, [eventRowOf(dialect, {
        ...event,
        scope: 'api',
        actorType: ctx?.actor.identity?.type ?? null,
        actorId: ctx?.actor.identity?.id ?? null,
        request: ctx ? { ip: ctx.request.ip ?? null, method: ctx.request.method ?? null, path: ctx.request.path ?? null } : null,
    })]);
    // the realtime bus hears of it once the change is committed
    announceAfterCommit(db, { name: event.name, refType: event.refType, refId: event.refId, realmId: event.realmId, data: event.data ?? null, createdAt: new Date() });
}
