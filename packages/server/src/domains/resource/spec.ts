import type { TableName } from '../../db/schema.js';
import { REFERENCED_REALM, type JunctionList, type StoredRow } from '../../storage/resource/table.js';

/**
 * `idList`: ids held in a junction table (ResourceSpec.lists, storage/resource/table.ts JunctionList),
 * read and written like a field; never filtered or sorted.
 */
export type FieldType = 'string' | 'boolean' | 'uuid' | 'integer' | 'enum' | 'json' | 'date' | 'stringList' | 'idList';

/** One REST field of a resource and the column behind it (API.md §3). */
export interface FieldSpec {
    /** camelCase REST name */
    name: string;
    /** snake_case column */
    column: string;
    type: FieldType;
    values?: readonly string[];
    nullable?: boolean;
    minLength?: number;
    maxLength?: number;
    pattern?: string;
    /** writable on create: required, optional, or not at all */
    create?: 'required' | 'optional' | false;
    /** writable on update */
    update?: boolean;
    /** value on create when the body omits it */
    default?: unknown;
    /**
     * default: in every read; withheld: only through `fields=+name` and only for readers allowed
     * to see it (spec "Other resource fields"); never: write-only (password hashes)
     */
    read?: 'default' | 'withheld' | 'never';
    filter?: boolean;
    sort?: boolean;
}

export type Action = 'create' | 'read' | 'update' | 'delete';

/** A relation reachable through `include` and `filter[relation.field]`. */
export interface RelationSpec {
    /** the local column holding the foreign id */
    column: string;
    /** the related resource's spec name (looked up in the registry) */
    resource: string;
    /**
     * readable by whoever may read the owning row, without the related resource's own read
     * permission (spec: the path relation on a user or client is readable by whoever can read it)
     */
    readableWithOwner?: boolean;
}

export interface ResourceSpec<T extends TableName = TableName> {
    /** singular, snake_case: prefix of its permission names and event ref type */
    entity: string;
    /** URL segment */
    collection: string;
    table: T;
    /**
     * realm_id NOT NULL, NULL allowed (global rows), no realm dimension, or `self`: the row is a
     * realm and its own id is the realm its decisions are about, or `referenced`: the row has no
     * realm column and its decisions are about the realm of the row `realmReference` names (a
     * junction: its holder's realm, null for a global holder)
     */
    realm: 'required' | 'nullable' | 'none' | 'self' | 'referenced';
    /** realm `referenced`: the local column naming the row whose realm_id is this row's realm */
    realmReference?: { column: string; table: TableName };
    /** :id may be a name, resolved in the route realm (or the caller's) */
    named: boolean;
    /** permission name per action; default `${entity}_${action}` */
    permissions?: Partial<Record<Action, string>>;
    fields: FieldSpec[];
    relations?: Record<string, RelationSpec>;
    /** `builtIn` rows cannot be deleted */
    hasBuiltIn?: boolean;
    /** writes change the authorization catalog (permissions, policies, their bindings) */
    invalidatesCatalog?: boolean;
    /** the junction lists behind its `idList` fields, each under the field's column */
    lists?: readonly JunctionList[];
}

/** The junction list behind an `idList` field. */
export function listOfField(spec: Pick<ResourceSpec, 'entity' | 'lists'>, field: FieldSpec): JunctionList {
    const list = spec.lists?.find((candidate) => candidate.column === field.column);
    if (!list) throw new Error(`${spec.entity}.${field.name}: an idList field needs its junction list`);
    return list;
}

export function permissionFor(spec: ResourceSpec, action: Action): string {
    return spec.permissions?.[action] ?? `${spec.entity}_${action}`;
}

/** A field only the server writes (sessions, tokens, the event log): read and filtered, never in a body. */
export const readOnlyField = (name: string, column: string, type: FieldType, extra: Partial<FieldSpec> = {}): FieldSpec => ({
    name, column, type, create: false, update: false, ...extra,
});

/** id, timestamps and realmId are common to every resource and described once here. */
export function commonFields(spec: Pick<ResourceSpec, 'realm'>): FieldSpec[] {
    const fields: FieldSpec[] = [
        { name: 'id', column: 'id', type: 'uuid', create: false, update: false },
        { name: 'createdAt', column: 'created_at', type: 'date', create: false, update: false },
        { name: 'updatedAt', column: 'updated_at', type: 'date', create: false, update: false },
    ];
    if (spec.realm === 'required' || spec.realm === 'nullable') {
        fields.push({
            name: 'realmId',
            column: 'realm_id',
            type: 'uuid',
            nullable: spec.realm === 'nullable',
            create: 'optional',
            // a row keeps its realm: names, bindings, attributes and folders are filed under it
            update: false,
        });
    }
    return fields;
}

/** A stored reference column (realm_id and the like): its id, or null. */
function storedId(value: unknown): string | null {
    return typeof value === 'string' ? value : null;
}


/** The realm a decision about this row is about; undefined: the resource has no realm dimension. */
export function realmOfRow(spec: ResourceSpec, row: StoredRow): string | null | undefined {
    if (spec.realm === 'self') return row.id;
    if (spec.realm === 'none') return undefined;
    if (spec.realm === 'referenced') {
        // never guessed: a row read without its referenced realm would decide as if it were global
        if (!(REFERENCED_REALM in row)) throw new Error(`${spec.entity} row read without its referenced realm`);
        return storedId(row[REFERENCED_REALM]);
    }
    return storedId(row.realm_id);
}

/** REALM_MATCH data for a decision: present (possibly null) exactly when the resource has a realm dimension. */
export function realmMatchOf(realm: string | null | undefined): { realmMatch?: string | null } {
    return realm === undefined ? {} : { realmMatch: realm };
}

/** The record attribute grant reach targets when compiling a list read. */
export function realmAttributeOf(spec: ResourceSpec): string | undefined {
    return spec.realm === 'self' ? 'id' : undefined;
}
