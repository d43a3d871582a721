import type { CollectionQuerySpec } from '../../query/types.js';
import type { ResourceDefinition } from './context.js';

/**
 * Built once per definition (and per set of relations, which the registry links after the
 * definitions exist): a list read asks for it per request and its projection per row (profiled:
 * it was 5 % of a 50-row list's CPU). Callers read it and never change it.
 */
const memo = new WeakMap<ResourceDefinition, { related: ResourceDefinition['related']; whole?: CollectionQuerySpec; own?: CollectionQuerySpec }>();

/** The list-query description of a resource: its readable fields and, optionally, its relations. */
export function querySpecOf(definition: ResourceDefinition, withRelations = true): CollectionQuerySpec {
    let cached = memo.get(definition);
    if (!cached || cached.related !== definition.related) {
        cached = { related: definition.related };
        memo.set(definition, cached);
    }
    if (withRelations) return (cached.whole ??= buildQuerySpec(definition, true));
    return (cached.own ??= buildQuerySpec(definition, false));
}

function buildQuerySpec(definition: ResourceDefinition, withRelations: boolean): CollectionQuerySpec {
    const fields: CollectionQuerySpec['fields'] = {};
    for (const field of definition.fields) {
        if ((field.read ?? 'default') === 'never') continue;
        fields[field.name] = {
            column: field.column,
            type: field.type === 'integer' ? 'number' : field.type === 'stringList' || field.type === 'json' || field.type === 'idList' ? 'string' : field.type,
            ...(field.values ? { values: [...field.values] } : {}),
            // an idList is no column of the table: nothing to filter or sort by in SQL
            filter: field.type === 'idList' ? false : field.filter ?? (field.type !== 'json' && field.type !== 'stringList' && (field.read ?? 'default') === 'default'),
            sort: field.type === 'idList' ? false : field.sort ?? (field.type !== 'json' && field.type !== 'stringList' && (field.read ?? 'default') === 'default'),
            ...(field.read === 'withheld' ? { withheld: true } : {}),
            // a nullable date (a session's revokedAt) also takes `null` / `!null`
            ...(field.type === 'date' && field.nullable ? { nullable: true } : {}),
        };
    }
    if (!withRelations || !definition.related?.size) return { fields };
    // relations are loadable with include and filterable through (relation-columns.ts), each gated
    // by the related resource's own read permission
    const relations: NonNullable<CollectionQuerySpec['relations']> = {};
    for (const [name, related] of definition.related) relations[name] = querySpecOf(related, false);
    return { fields, relations };
}
