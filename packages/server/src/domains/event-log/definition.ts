import type { ResourceDefinition } from '../resource/context.js';
import { commonFields, readOnlyField as readOnly, type ResourceSpec } from '../resource/spec.js';

const eventSpec: ResourceSpec = {
    entity: 'event',
    collection: 'events',
    table: 'auth_events',
    // null: a deployment-wide entry (a deleted realm's own entries, spec Events 3; global rows' changes)
    realm: 'nullable',
    named: false,
    relations: { realm: { column: 'realm_id', resource: 'realm' } },
    fields: [],
};
// API.md §3: name, scope, refType, refId, actorType, actorId, realmId, data, createdAt; createdAt
// alone (an entry is never updated, spec "Schema and statistics facets"). The request's address,
// method and path are kept for the operator's database, not served.
eventSpec.fields = [
    ...commonFields(eventSpec).filter((field) => field.name !== 'updatedAt').map((field) => ({ ...field, create: false as const, update: false })),
    readOnly('name', 'name', 'string'),
    readOnly('scope', 'scope', 'string'),
    readOnly('refType', 'ref_type', 'string'),
    readOnly('refId', 'ref_id', 'string', { nullable: true }),
    readOnly('actorType', 'actor_type', 'string', { nullable: true }),
    readOnly('actorId', 'actor_id', 'string', { nullable: true }),
    readOnly('data', 'data', 'json', { nullable: true, filter: false, sort: false }),
];

/** The event log (spec Events 1, API.md §3 `/events`: read only), realm-gated by event_read. */
export function eventsDefinition(): ResourceDefinition {
    return { spec: eventSpec, fields: eventSpec.fields, hooks: {}, writes: [] };
}
