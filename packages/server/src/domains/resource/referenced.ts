import { issue, validationFailed } from '../../errors/app-error.js';
import { findReferencedRealm } from '../../storage/resource/rows.js';
import type { Db } from './context.js';
import type { FieldSpec, ResourceSpec } from './spec.js';

/**
 * Realm `referenced` (spec.ts): the realm a row being created is about is the realm of the row its
 * reference member names. A reference naming nothing answers 400 before any decision (the insert
 * would fail on its foreign key anyway), so a decision is never taken without the realm.
 */
export async function referencedRealmOfInput(db: Db, spec: ResourceSpec, fields: readonly FieldSpec[], input: Record<string, unknown>): Promise<string | null> {
    const column = spec.realmReference?.column;
    const member = fields.find((field) => field.column === column)?.name ?? column ?? 'realmId';
    const id = input[member];
    const row = typeof id === 'string' ? await findReferencedRealm(db, spec, id) : undefined;
    if (!row) throw validationFailed([issue([member], 'not_found', 'names no existing entity')]);
    return row.realm_id;
}
