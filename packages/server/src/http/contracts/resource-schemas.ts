import { Type, type TObject, type TOptional, type TSchema, type TString } from '@sinclair/typebox';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import type { FieldSpec } from '../../domains/resource/spec.js';
import { describeResource } from '../../domains/resource/describe.js';

/**
 * Whether a read can answer null for a field: never for the identity and the timestamps every row
 * is written with, nor for a field declared non-nullable (`nullable: false`), nor for one a create
 * must carry or that has a non-null default (writes refuse null for a non-nullable field, see
 * domains/resource/body-schema.ts), nor for an id list (read as [] when empty).
 */
function readsNull(field: FieldSpec): boolean {
    if (field.type === 'idList' || ALWAYS_WRITTEN.has(field.name) || field.nullable === false) return false;
    if (field.nullable) return true;
    return !(field.create === 'required' || (field.default !== undefined && field.default !== null));
}
const ALWAYS_WRITTEN = new Set(['id', 'createdAt', 'updatedAt']);

/** How a field reads back (domains/resource/records.ts readValue): its JSON type, or null when it may be. */
function fieldSchema(field: FieldSpec): TSchema {
    const value = (schema: TSchema) => (readsNull(field) ? Type.Union([schema, Type.Null()]) : schema);
    switch (field.type) {
        case 'boolean': return value(Type.Boolean());
        case 'integer': return value(Type.Integer());
        case 'date': return value(Type.String({ format: 'date-time' }));
        case 'stringList': return value(Type.Array(Type.String()));
        case 'idList': return Type.Array(Type.String({ format: 'uuid' }));
        case 'json': return Type.Unknown();
        case 'enum': return value(Type.String({ enum: [...(field.values ?? [])] }));
        case 'uuid': return value(Type.String({ format: 'uuid' }));
        default: return value(Type.String());
    }
}

/**
 * A resource's record as a read without `fields=` answers it, generated from its field specs:
 * every default-read field is there (required: domains/resource/records.ts toRecord), a withheld
 * one only through `fields=+name` (optional); room is left for what a resource adds (included
 * relations, a policy's configuration, a composite's children). The answer of writes.
 */
export function recordSchema(definition: ResourceDefinition): TObject {
    return Type.Object(recordProperties(definition, true), { additionalProperties: true, title: definition.spec.entity });
}

/** Marks the projection branch of a read's schema, which the client kit types from the query itself. */
const PROJECTION_KEYWORD = 'x-realmgate-projection';

/**
 * The record of a route that takes `fields=` (API.md §2): the default read, or a projection
 * carrying only the members `fields` names — the document says both, so it never claims a member
 * a projected read leaves out.
 */
export function readSchema(definition: ResourceDefinition): TSchema {
    const projection = Type.Object(recordProperties(definition, false), {
        additionalProperties: true, title: `${definition.spec.entity} (projection)`,
        description: 'A read with `fields=`: only the members it names (withheld ones it adds with `+name`).', [PROJECTION_KEYWORD]: true,
    });
    return Type.Union([recordSchema(definition), projection]);
}

function recordProperties(definition: ResourceDefinition, defaultRead: boolean): Record<string, TSchema> {
    return Object.fromEntries(definition.fields
        .filter((field) => (field.read ?? 'default') !== 'never')
        .map((field) => [field.name, defaultRead && (field.read ?? 'default') === 'default' ? fieldSchema(field) : Type.Optional(fieldSchema(field))]));
}

/** API.md §1: `{ data, meta: {} }` for one record. */
export const singleEnvelope = (data: TSchema, description: string): TSchema =>
    Type.Object({ data, meta: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: false, description });

/** API.md §1: `{ data: [...], meta: { total, limit, offset } }` for a list. */
export const listEnvelope = (data: TSchema, description: string): TSchema => Type.Object({
    data: Type.Array(data),
    meta: Type.Object({ total: Type.Integer({ minimum: 0 }), limit: Type.Integer({ minimum: 0 }), offset: Type.Integer({ minimum: 0 }) }, { additionalProperties: true }),
}, { additionalProperties: false, description });

/**
 * A query parameter documented but not validated here: src/query/ parses and checks it (API.md
 * §2), so a schema of its own would answer some malformed values differently.
 */
const parsedByQuery = (description: string): TSchema => Type.Unknown({ description });

/** `fields`: the projection of reads (API.md §2). */
export const ReadQuery = Type.Object({
    fields: Type.Optional(parsedByQuery('`id,name` replaces the projection; `+secret` adds an allowed withheld field; `fields[entity]=…` on junctions.')),
    include: Type.Optional(parsedByQuery('Allowed relations to load, comma-separated (each gated by its read permission).')),
}, { additionalProperties: true });

/** The list query of a resource (API.md §2), with one `filter[field]` per filterable field. */
export function listQuery(definition: ResourceDefinition): TSchema {
    const filters = Object.fromEntries(describeResource(definition).fields.filter((field) => field.filterable).map((field) => [
        `filter[${field.name}]`,
        Type.Optional(parsedByQuery(`Filter on ${field.name}: \`!\` not, \`~\` like, ${field.type === 'date' ? '`<`, `<=`, `>`, `>=`' : 'a comma list for "in", `null`'}.`)),
    ]));
    return Type.Object({
        ...filters,
        fields: Type.Optional(parsedByQuery('`id,name` replaces the projection; `+secret` adds an allowed withheld field.')),
        sort: Type.Optional(parsedByQuery('`name,-createdAt`: sortable fields, `-` descending.')),
        include: Type.Optional(parsedByQuery('Allowed relations to load, comma-separated.')),
        'page[limit]': Type.Optional(parsedByQuery('Page size, default 50, at most 100.')),
        'page[offset]': Type.Optional(parsedByQuery('Rows to skip.')),
    }, { additionalProperties: true, description: '`filter[relation.field]` filters through an allowed relation.' });
}

/** The params of a route: `:id`-like names, plus `realmId` on a realm mount. */
type IdParams<N extends string> = TObject<{ [K in N]: TString } & { realmId: TOptional<TString> }>;

/** `:id`: a UUID or, for named entities, a name (API.md §1); `:realmId` of a realm mount likewise. */
export function idParams<const N extends string = 'id'>(prefix: string, names: readonly N[] = ['id' as N]): IdParams<N> {
    const properties: Record<string, TString> = {};
    if (prefix.includes(':realmId')) properties.realmId = Type.String({ description: 'The realm of the mount, by id or name.' });
    for (const name of names) properties[name] = Type.String({ description: 'A UUID, or a name for named entities.' });
    return Type.Object(properties) as unknown as IdParams<N>;
}
