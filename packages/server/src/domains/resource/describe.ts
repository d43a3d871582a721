import type { ResourceDefinition } from './context.js';
import type { CollectionQuerySpec } from '../../query/types.js';
import { querySpecOf } from './query-spec.js';
import { STATISTIC_COLLECTIONS } from '../event-log/stats.js';

/** One entity's query vocabulary (spec "Schema and statistics facets": GET /<collection>/@schema). */
export function describeResource(definition: ResourceDefinition) {
    const query = querySpecOf(definition);
    return {
        name: definition.spec.entity,
        collection: definition.spec.collection,
        realm: definition.spec.realm,
        fields: Object.entries(query.fields).map(([name, field]: [string, CollectionQuerySpec['fields'][string]]) => ({
            name,
            type: field.type,
            ...(field.values ? { values: field.values } : {}),
            filterable: field.filter !== false,
            sortable: field.sort !== false,
            withheld: field.withheld === true,
            ...(field.type === 'date' ? { filterOperators: ['<', '<=', '>', '>='] } : {}),
        })),
        relations: Object.keys(definition.spec.relations ?? {}),
        pagination: { defaultLimit: 50, maxLimit: 100 },
        // GET /<collection>/@stats answers (spec v1.0.0-beta.67 item 1: the thirteen with a statistic)
        statistic: STATISTIC_COLLECTIONS.has(definition.spec.collection),
    };
}
