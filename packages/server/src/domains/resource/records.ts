import { fromDbBool, fromDbDate, toDbBool, toDbDate, type DialectName } from '../../db/values.js';
import type { StoredRow } from '../../storage/resource/table.js';
import type { FieldSpec } from './spec.js';

/** A stored row of any resource (storage/resource/table.ts); hooks see `TableRow<T>`. */
export type Row = StoredRow;
export type EntityRecord = Record<string, unknown>;

/** A stored column value as its REST value. */
export function readValue(field: FieldSpec, value: unknown): unknown {
    if (value === null || value === undefined) return null;
    switch (field.type) {
        case 'boolean':
            return fromDbBool(value as boolean | number);
        case 'date':
            return fromDbDate(value as Date | string).toISOString();
        case 'integer':
            return Number(value);
        case 'stringList':
        case 'json':
            return parseJson(value);
        case 'idList':
            // read beside the row, already in id order (storage/resource/lists.ts)
            return Array.isArray(value) ? [...value] : [];
        default:
            return value;
    }
}

/** A REST value as the value to store. */
export function writeValue(dialect: DialectName, field: FieldSpec, value: unknown): unknown {
    if (value === null || value === undefined) return null;
    switch (field.type) {
        case 'boolean':
            return toDbBool(dialect, value as boolean);
        case 'date':
            return toDbDate(dialect, new Date(value as string));
        case 'stringList':
        case 'json':
            // JSON-quoted, so a string stays a string when read back (spec beta.68 item 3)
            return JSON.stringify(value);
        default:
            return value;
    }
}

/**
 * Deserialize both forms (spec "attribute values"): JSON text as written now, and a bare value
 * stored before quoting existed — a bare numeric or boolean text still reads as that type.
 */
function parseJson(value: unknown): unknown {
    if (typeof value !== 'string') return value;
    try {
        return JSON.parse(value);
    } catch {
        return value;
    }
}

/** The REST record of a row: default-read fields, plus the withheld ones asked for and allowed. */
export function toRecord(fields: readonly FieldSpec[], row: Row, withheld: readonly string[] = []): EntityRecord {
    const record: EntityRecord = {};
    for (const field of fields) {
        const read = field.read ?? 'default';
        if (read === 'never') continue;
        if (read === 'withheld' && !withheld.includes(field.name)) continue;
        record[field.name] = readValue(field, row[field.column]);
    }
    return record;
}

/**
 * The REST record of a row as its resource presents it: toRecord, then the resource's
 * decorateRecord hook (policies put their configuration keys at the top level, API.md §3).
 */
export function recordOf(
    definition: { fields: readonly FieldSpec[]; hooks: { decorateRecord?(record: EntityRecord, row: Row): EntityRecord } },
    row: Row,
    withheld: readonly string[] = [],
): EntityRecord {
    const record = toRecord(definition.fields, row, withheld);
    return definition.hooks.decorateRecord ? definition.hooks.decorateRecord(record, row) : record;
}
