import type { Condition } from '@realmgate/access';
import type { TSchema } from '@sinclair/typebox';
import type { Kysely, Transaction } from 'kysely';
import type { Database, TableName } from '../../db/schema.js';
import type { Columns, TableRow } from '../../storage/resource/table.js';
import type { RequestContext } from '../../authz/request-context.js';
import type { EntityRecord } from './records.js';
import type { Action, FieldSpec, ResourceSpec } from './spec.js';

/** The database as the engine and its hooks read it, typed by the schema. */
export type Db = Kysely<Database>;
/** The transaction of a write (storage/write-transaction.ts): hooks given it query through it. */
export type Tx = Transaction<Database>;

/** A validated request body (or the query string): REST member name to value. */
export type Input = Record<string, unknown>;

/**
 * The lifecycle stages of a resource beyond plain columns (secrets, passwords, trees, delegation),
 * each typed by the resource's table T: rows are `TableRow<T>` (db/schema.ts), so a stage reads
 * its columns without casts. In the order a request meets them:
 * - body shape: `extraBody`, `strippedBody`, `openBody` (the route schema, http/routes/resource.ts);
 * - `createRealm` → `authorize` → `prepareCreate` → insert → `afterCreate` (createEntity);
 * - lock → `authorize` → `prepareUpdate` → update → `afterUpdate` (updateEntity);
 * - lock → `authorize` → `refuseDelete` → delete (deleteEntity);
 * - reads: `ownRows` → `canReadWithheld` → `revealWithheld` → `decorateRecord`.
 * Stages that receive `tx` run inside the write transaction and must query through it, never
 * through deps.db: SQLite has a single connection and the transaction holds it.
 */
export interface ResourceHooks<T extends TableName = TableName> {
    /** extra body members the resource handles itself (e.g. a user's password) */
    extraBody?: Record<string, TSchema>;
    /** body members accepted and silently dropped (spec: client scope/rootUrl) */
    strippedBody?: string[];
    /**
     * the body accepts members beyond the fields (policies: the type's configuration keys at the
     * top level, API.md §3); the resource vets them itself in prepareCreate/prepareUpdate
     */
    openBody?: boolean;
    /** the realm of a row being created when a parent decides it (attributes: the owner's realm), replacing route/body/caller resolution */
    createRealm?(ctx: RequestContext, input: Input, db: Db): Promise<string | null>;
    /** replaces the default permission check of an action (self-manage fallbacks, delegation) */
    authorize?(ctx: RequestContext, action: Action, subject: AuthorizationSubject, fallback: () => Promise<void>): Promise<void>;
    /** column values to insert for a validated create body (after defaults and realm resolution) */
    prepareCreate?(ctx: RequestContext, input: Input, tx: Tx): Promise<Columns>;
    /** column values to write for a validated update body; `row` is the locked current row */
    prepareUpdate?(ctx: RequestContext, row: TableRow<T>, input: Input, tx: Tx): Promise<Columns>;
    /** after the row is inserted, in the same transaction (bindings, derived columns) */
    afterCreate?(ctx: RequestContext, row: TableRow<T>, tx: Tx): Promise<void>;
    /** after the row is updated, in the same transaction (sessions ended by the change) */
    afterUpdate?(ctx: RequestContext, before: TableRow<T>, after: TableRow<T>, tx: Tx): Promise<void>;
    /**
     * a reason to refuse deleting this row (400), or throw an AppError of its own (e.g. 409 while in
     * use); `query` is the request's query string (keys: `?force=true` destroys dependents instead)
     */
    refuseDelete?(row: TableRow<T>, tx: Tx, ctx: RequestContext, query: Input): string | null | Promise<string | null>;
    /**
     * the rows the caller may read without the read permission, as a condition over the fields
     * (sessions: one's own, as DELETE /sessions/:id lets their owner end them); null: none
     */
    ownRows?(ctx: RequestContext): Condition | null;
    /** may this reader see withheld `field` of this row? default: it may update the row, or it is the row */
    canReadWithheld?(ctx: RequestContext, field: FieldSpec, row: TableRow<T>): Promise<boolean>;
    /** the REST value of a withheld field the reader may see (e.g. an encrypted secret, decrypted); default: the column */
    revealWithheld?(field: FieldSpec, row: TableRow<T>): Promise<unknown>;
    /** the outgoing record built from a row (policies: configuration keys merged in); default: the fields */
    decorateRecord?(record: EntityRecord, row: TableRow<T>): EntityRecord;
}

export interface AuthorizationSubject {
    /** the resource realm the decision is about; undefined when it has none (a realm being created) */
    realmId: string | null | undefined;
    /** the record the decision is about (create: the body; others: the stored record) */
    record: EntityRecord;
    /** update: the names of the attributes being written */
    attributeNames?: string[];
}

export interface ResourceDefinition<T extends TableName = TableName> {
    spec: ResourceSpec<T>;
    fields: FieldSpec[];
    hooks: ResourceHooks<T>;
    /**
     * the generic write routes to mount; default all. A resource the API only reads and ends
     * (sessions: created by logins, revoked rather than deleted) leaves some out.
     */
    writes?: readonly ('create' | 'update' | 'delete')[];
    /** the definitions behind `spec.relations`, linked once at registration */
    related?: Map<string, ResourceDefinition>;
}

/**
 * A resource over table T: its hooks see T's rows typed (`defineResource<'auth_users'>(…)`).
 * The registry holds them as `ResourceDefinition` (every table), which the engine serves.
 */
export function defineResource<T extends TableName>(definition: ResourceDefinition<T>): ResourceDefinition<T> {
    return definition;
}
