import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import { issue, validationFailed } from '../../errors/app-error.js';
import type { ColumnResolver } from '../../storage/list-query/sql-column.js';
import type { AnyDb } from './context.js';
import type { Row } from './records.js';
import { REFERENCED_REALM, type FieldSpec, type ResourceSpec } from './spec.js';

/*
 * Realm `referenced` (spec.ts): a row without a realm column whose decisions are about the realm of
 * another row — a junction's holder. Reads carry that realm under REFERENCED_REALM so realmOfRow
 * (REALM_MATCH) and list conditions over `realmId` see it; nothing ever writes it.
 */

function referenceOf(spec: ResourceSpec): { column: string; table: string } {
    if (!spec.realmReference) throw new Error(`${spec.entity}: realm 'referenced' needs realmReference`);
    return spec.realmReference;
}

/** The referenced row's realm_id as a correlated subquery over the resource's own table. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- generic over every table, like AnyDb
export function referencedRealm(eb: ExpressionBuilder<any, any>, spec: ResourceSpec) {
    const reference = referenceOf(spec);
    return eb.selectFrom(`${reference.table} as referenced_row`)
        .select('referenced_row.realm_id')
        .whereRef('referenced_row.id', '=', `${spec.table}.${reference.column}`);
}

/** `SELECT <table>.*`, plus the referenced realm for a `referenced` resource. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function selectRows(db: AnyDb, spec: ResourceSpec): SelectQueryBuilder<any, any, Row> {
    const query = db.selectFrom(spec.table).selectAll(spec.table);
    return spec.realm === 'referenced' ? query.select((eb) => referencedRealm(eb, spec).as(REFERENCED_REALM)) : query;
}

/**
 * The realm a row being created is about: the realm of the row its reference member names. A
 * reference naming nothing answers 400 before any decision (the insert would fail on its foreign
 * key anyway), so a decision is never taken without the realm.
 */
export async function referencedRealmOfInput(db: AnyDb, spec: ResourceSpec, fields: readonly FieldSpec[], input: Record<string, unknown>): Promise<string | null> {
    const reference = referenceOf(spec);
    const member = fields.find((field) => field.column === reference.column)?.name ?? reference.column;
    const id = input[member];
    const row = typeof id === 'string' ?
        await db.selectFrom(reference.table).select('realm_id').where('id', '=', id).executeTakeFirst() as { realm_id: string | null } | undefined :
        undefined;
    if (!row) throw validationFailed([issue([member], 'not_found', 'names no existing entity')]);
    return row.realm_id ?? null;
}

/** Add the referenced realm to a select over the resource's table (nothing for other resources). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withReferencedRealm<QB extends SelectQueryBuilder<any, any, any>>(query: QB, spec: ResourceSpec): QB {
    return spec.realm === 'referenced' ? query.select((eb) => referencedRealm(eb, spec).as(REFERENCED_REALM)) as QB : query;
}

/**
 * A list resolver that also knows `realmId` of a `referenced` resource: a compiled verdict's grant
 * reach targets `realmId` (spec consumer rule 11), here the referenced row's realm, so the
 * decision stays in the SQL query and totals stay exact.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withReferencedRealmColumn(resolve: ColumnResolver<any, string>, spec: ResourceSpec): ColumnResolver<any, string> {
    if (spec.realm !== 'referenced') return resolve;
    return (field) => (field === 'realmId' ? { ref: (eb) => referencedRealm(eb, spec), type: 'uuid' } : resolve(field));
}
