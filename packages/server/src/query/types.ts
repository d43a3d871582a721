import type { FieldCondition } from '@realmgate/access';

export type QueryFieldType = 'string' | 'uuid' | 'boolean' | 'number' | 'date' | 'enum';

export interface QueryFieldSpec {
    /** snake_case column (the repository maps it; the parser only carries it) */
    column: string;
    type: QueryFieldType;
    /** allowed values for `enum` */
    values?: readonly string[];
    /** filterable; default true, but false for withheld fields (filtering would probe a secret) */
    filter?: boolean;
    /** sortable; default true, but false for withheld fields */
    sort?: boolean;
    /** left out of default reads; projected only with `fields=+name` */
    withheld?: boolean;
    /** the column may be NULL; only then do `date` fields accept the `null` / `!null` filter */
    nullable?: boolean;
}

export interface SortItem {
    field: string;
    direction: 'asc' | 'desc';
}

/** The allow-lists of one collection (API.md §2: every collection has allow-lists). */
export interface CollectionQuerySpec {
    /** keyed by the camelCase REST field name */
    fields: Record<string, QueryFieldSpec>;
    relations?: Record<string, RelationQuerySpec>;
    /** used when the request has no `sort` */
    defaultSort?: readonly SortItem[];
    /** largest `page[limit]`; default 100 */
    maxLimit?: number;
}

export interface RelationQuerySpec extends CollectionQuerySpec {
    /** loadable with `include=<relation>`; default true */
    include?: boolean;
    /** filterable through with `filter[<relation>.<field>]`; default true */
    filter?: boolean;
}

/**
 * API.md §2 `~abc~` (contains) has no counterpart in the access library's Condition; the server
 * carries it as a local operator rather than widen the shared, isomorphic type.
 */
export interface ContainsCondition {
    operator: 'contains';
    field: string;
    value: string;
}

export type QueryFieldCondition = FieldCondition | ContainsCondition;

/** A Condition that may also hold `contains` anywhere in the tree. */
export type QueryCondition =
    | QueryFieldCondition
    | { operator: 'and' | 'or'; conditions: QueryCondition[] }
    | { operator: 'not'; condition: QueryCondition };

export interface ListQuery {
    /** AND of every filter; field names are camelCase, relation fields `relation.field` */
    filter: QueryCondition | null;
    fields: {
        /** the projection: the requested fields, or every non-withheld field */
        base: string[];
        /** withheld fields requested with `+name` */
        added: string[];
    };
    /** `fields[relation]=+name` (junction collections, spec: `fields[client]=+secret`) */
    perRelationFields?: Record<string, { added: string[] }>;
    /** as requested, else the spec's default sort */
    sort: SortItem[];
    page: { limit: number; offset: number };
    include: string[];
}
