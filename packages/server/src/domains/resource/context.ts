import type { TSchema } from '@sinclair/typebox';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { RequestContext } from '../../authz/request-context.js';
import type { EntityRecord, Row } from './records.js';
import type { Action, FieldSpec, ResourceSpec } from './spec.js';

/** The database as the engine and its hooks read it, typed by the schema. */
export type Db = Kysely<Database>;
/** The transaction of a write (storage/write-transaction.ts): hooks given it query through it. */
export type Tx = Transaction<Database>;

/**
 * Per-resource behaviour beyond plain columns: secrets, passwords, tree validation, delegation.
 * Hooks that receive `tx` must query through it, never through deps.db: SQLite has a single
 * connection and the transaction holds it (a query on deps.db would wait forever).
 */
export interface ResourceHooks {
    /** extra body members the resource handles itself (e.g. a user's password) */
    extraBody?: Record<string, TSchema>;
    /** body members accepted and silently dropped (spec: client scope/rootUrl) */
    strippedBody?: string[];
    /** the realm of a row being created when a parent decides it (attributes: the owner's realm), replacing route/body/caller resolution */
    createRealm?(ctx: RequestContext, input: Record<string, unknown>, db: Db): Promise<string | null>;
    /** column values to insert for a validated create body (after defaults and realm resolution) */
    prepareCreate?(ctx: RequestContext, input: Record<string, unknown>, tx: Tx): Promise<Row>;
    /** column values to write for a validated update body; `row` is the locked current row */
    prepareUpdate?(ctx: RequestContext, row: Row, input: Record<string, unknown>, tx: Tx): Promise<Row>;
    /** replaces the default permission check of an action (self-manage fallbacks, delegation) */
    authorize?(ctx: RequestContext, action: Action, subject: AuthorizationSubject, fallback: () => Promise<void>): Promise<void>;
    /** may this reader see withheld `field` of this row? default: it may update the row, or it is the row */
    canReadWithheld?(ctx: RequestContext, field: FieldSpec, row: Row): Promise<boolean>;
    /** the REST value of a withheld field the reader may see (e.g. an encrypted secret, decrypted); default: the column */
    revealWithheld?(field: FieldSpec, row: Row): Promise<unknown>;
    /** after the row is written, in the same transaction (bindings, events of side effects) */
    afterCreate?(ctx: RequestContext, row: Row, tx: Tx): Promise<void>;
    afterUpdate?(ctx: RequestContext, before: Row, after: Row, tx: Tx): Promise<void>;
    /**
     * the body accepts members beyond the fields (policies: the type's configuration keys at the
     * top level, API.md §3); the resource vets them itself in prepareCreate/prepareUpdate
     */
    openBody?: boolean;
    /** the outgoing record built from a row (policies: configuration keys merged in); default: the fields */
    decorateRecord?(record: EntityRecord, row: Row): EntityRecord;
    /**
     * a reason to refuse deleting this row (400), or throw an AppError of its own (e.g. 409 while in
     * use); `query` is the request's query string (keys: `?force=true` destroys dependents instead)
     */
    refuseDelete?(row: Row, tx: Tx, ctx: RequestContext, query: Record<string, unknown>): string | null | Promise<string | null>;
}

export interface AuthorizationSubject {
    /** the resource realm the decision is about; undefined when it has none (a realm being created) */
    realmId: string | null | undefined;
    /** the record the decision is about (create: the body; others: the stored record) */
    record: EntityRecord;
    /** update: the names of the attributes being written */
    attributeNames?: string[];
}

export interface ResourceDefinition {
    spec: ResourceSpec;
    fields: FieldSpec[];
    hooks: ResourceHooks;
    /**
     * the generic write routes to mount; default all. A resource the API only reads and ends
     * (sessions: created by logins, revoked rather than deleted) leaves some out.
     */
    writes?: readonly ('create' | 'update' | 'delete')[];
    /** the definitions behind `spec.relations`, linked once at registration */
    related?: Map<string, ResourceDefinition>;
}
