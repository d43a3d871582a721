import type { DbBool, DbDate } from './schema.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/**
 * A timestamp as the driver wants it. SQLite has no date type: an ISO-8601 UTC string with
 * milliseconds sorts lexically in time order and reads back unambiguously. PostgreSQL (timestamptz)
 * and MySQL (datetime(3) on a session pinned to UTC, mysql2 `timezone: 'Z'`) take a Date
 * (spec beta.67 item 6: written and read in UTC on every dialect).
 */
export function toDbDate(dialect: DialectName, date: Date): DbDate {
    if (Number.isNaN(date.getTime())) throw new RangeError('invalid date');
    return dialect === 'sqlite' ? date.toISOString() : date;
}

// A zone-less text value ("2024-05-01 10:00:00.123") is UTC: every writer of ours stores UTC.
const ZONELESS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** Reads a timestamp column on any dialect; strings without an offset are taken as UTC. */
export function fromDbDate(value: DbDate): Date {
    if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new RangeError('invalid date read from the database');
        return value;
    }
    const text = value.trim();
    const date = new Date(ZONELESS.test(text) ? `${text.replace(' ', 'T')}Z` : text);
    if (Number.isNaN(date.getTime())) throw new RangeError(`invalid date read from the database: ${value}`);
    return date;
}

/** Like fromDbDate, for nullable columns. */
export function fromDbDateOrNull(value: DbDate | null | undefined): Date | null {
    return value === null || value === undefined ? null : fromDbDate(value);
}

/** better-sqlite3 cannot bind booleans and MySQL stores tinyint(1): both take 1/0. */
export function toDbBool(dialect: DialectName, value: boolean): DbBool {
    if (dialect === 'postgres') return value;
    return value ? 1 : 0;
}

/** Reads a boolean column on any dialect (boolean, 0/1, bigint, or a text form). */
export function fromDbBool(value: DbBool | bigint | string | null | undefined): boolean {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number') return value !== 0;
    if (typeof value === 'bigint') return value !== 0n;
    if (typeof value === 'string') return value === '1' || value === 't' || value === 'true';
    return false;
}

/** The current instant in the dialect's timestamp form. */
export function nowForDb(dialect: DialectName): DbDate {
    return toDbDate(dialect, new Date());
}
