import type { CommittedEvent } from '../storage/write-transaction.js';
import type { EntityEvent } from './bus.js';

/** A committed write's event as the bus carries it (its data is already the default-read record, spec Events 5). */
export function entityEventOf(event: CommittedEvent): EntityEvent {
    return {
        name: event.name, entity: event.refType, id: event.refId, realmId: event.realmId, data: event.data,
        createdAt: event.createdAt.toISOString(),
    };
}
