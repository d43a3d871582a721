import { isUuid } from '@realmgate/core';
import type { QueryFieldSpec } from './types.js';

export type Coerced = { ok: true; value: string | number | boolean } | { ok: false; message: string };

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
// ISO-8601 date or date-time. A space stands for `+` in the offset: an unencoded `+` in a query
// string arrives as a space (application/x-www-form-urlencoded).
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+ -]\d{2}:?\d{2})?)?$/;

function daysInMonth(year: number, month: number): number {
    return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * ISO-8601 → the canonical `toISOString()` form the API writes (UTC, milliseconds). A date-time
 * without an offset is UTC, as every timestamp of the service is (DESIGN.md §5). Out-of-range
 * parts are refused instead of rolled over (`Date` would read 2024-02-30 as March 1st).
 */
function canonicalDate(text: string): string | null {
    const match = ISO_DATE.exec(text);
    if (!match) return null;
    const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = match;
    const year = Number(y);
    const month = Number(mo);
    const day = Number(d);
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
    let offsetMinutes = 0;
    if (zone !== 'Z') {
        const digits = zone.slice(1).replace(':', '');
        const hours = Number(digits.slice(0, 2));
        const minutes = Number(digits.slice(2));
        if (hours > 23 || minutes > 59) return null;
        offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
    }
    const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
    const time = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s), millis) - offsetMinutes * 60_000;
    const date = new Date(time);
    // Years outside 0000–9999 have no plain ISO form (toISOString gives ±YYYYYY), nor an order as text.
    if (Number.isNaN(time) || date.getUTCFullYear() < 0 || date.getUTCFullYear() > 9999) return null;
    return date.toISOString();
}

/** A filter operand as the field's type: the value the Condition carries and matchCondition compares. */
export function coerceValue(text: string, field: QueryFieldSpec): Coerced {
    switch (field.type) {
        case 'string':
            return { ok: true, value: text };
        case 'uuid':
            // Ids are generated lower-case; accept any case the client copied.
            return isUuid(text) ? { ok: true, value: text.toLowerCase() } : { ok: false, message: 'Expected a UUID.' };
        case 'boolean':
            if (text === 'true' || text === 'false') return { ok: true, value: text === 'true' };
            return { ok: false, message: 'Expected true or false.' };
        case 'number': {
            const value = NUMBER.test(text) ? Number(text) : NaN;
            return Number.isFinite(value) ? { ok: true, value } : { ok: false, message: 'Expected a decimal number.' };
        }
        case 'date': {
            const value = canonicalDate(text);
            return value ? { ok: true, value } : { ok: false, message: 'Expected an ISO-8601 date or date-time (2024-01-31T12:00:00Z).' };
        }
        case 'enum': {
            const values = field.values ?? [];
            if (values.includes(text)) return { ok: true, value: text };
            return { ok: false, message: `Expected one of ${values.join(', ')}.` };
        }
        default:
            return { ok: false, message: 'The field type is not filterable.' };
    }
}
