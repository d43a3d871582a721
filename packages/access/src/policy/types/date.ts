import type { PropertyPath } from '../../errors.js';
import { Outcome, passIf } from '../outcome.js';
import type { CanonicalPolicy, CompiledPolicy, EvaluationContext, PolicyTypeDefinition } from '../types.js';
import { invalidPolicy, readInvert } from '../validation.js';

/**
 * A calendar window in UTC. Passes while the evaluation instant lies in [start, end]; the host's
 * local time zone never takes part, so a browser and a server agree on every instant.
 */
export interface DatePolicy extends CanonicalPolicy {
    type: 'date';
    /** `YYYY-MM-DD` (from 00:00:00.000Z of that day) or a UTC date-time as produced by toISOString() */
    start?: string;
    /** `YYYY-MM-DD` (through the whole UTC day) or a UTC date-time; inclusive either way */
    end?: string;
}

interface Bound {
    canonical: string;
    /** epoch ms of the first instant the bound covers */
    ms: number;
    dateOnly: boolean;
}

interface DateWindow {
    start: number;
    /** the first instant after the window; Infinity without an end */
    endExclusive: number;
}

const DAY_MS = 86_400_000;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// Lower-case t/z are allowed: RFC 3339 permits them and some serializers emit them.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const EXPECTED = 'expected a date YYYY-MM-DD or an ISO-8601 date-time with Z or an offset';

/** Epoch ms of 00:00Z of a calendar day, or null when the day does not exist (2026-02-30). */
function calendarDay(year: number, month: number, day: number): number | null {
    // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
        return null;
    }
    return date.getTime();
}

function parseDateOnly(match: RegExpExecArray, value: string, path: PropertyPath): Bound {
    const ms = calendarDay(Number(match[1]), Number(match[2]), Number(match[3]));
    if (ms === null) throw invalidPolicy(path, `'${value}' is not a calendar date`);
    return { canonical: value, ms, dateOnly: true };
}

function parseDateTime(match: RegExpExecArray, value: string, path: PropertyPath): Bound {
    const [, year, month, day, hour, minute, second = '0', fraction = '', zulu, sign, offsetHour, offsetMinute] = match;
    const midnight = calendarDay(Number(year), Number(month), Number(day));
    if (midnight === null) throw invalidPolicy(path, `'${value}' is not a calendar date`);
    if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
        throw invalidPolicy(path, `'${value}' is not a valid time of day`);
    }
    let offset = 0;
    if (zulu === undefined) {
        if (Number(offsetHour) > 23 || Number(offsetMinute) > 59) throw invalidPolicy(path, `'${value}' has an invalid offset`);
        offset = (sign === '-' ? -1 : 1) * (Number(offsetHour) * 60 + Number(offsetMinute)) * 60_000;
    }
    // sub-millisecond digits are truncated: the canonical form (toISOString) carries milliseconds
    const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
    const ms = midnight + ((Number(hour) * 60 + Number(minute)) * 60 + Number(second)) * 1000 + millis - offset;
    const canonical = new Date(ms).toISOString();
    // the canonical form must validate again, and toISOString leaves YYYY outside years 0000–9999
    if (!DATE_TIME.test(canonical)) throw invalidPolicy(path, `'${value}' is outside years 0000–9999 in UTC`);
    return { canonical, ms, dateOnly: false };
}

function parseBound(value: unknown, path: PropertyPath): Bound {
    if (typeof value !== 'string') throw invalidPolicy(path, EXPECTED);
    const dateOnly = DATE_ONLY.exec(value);
    if (dateOnly) return parseDateOnly(dateOnly, value, path);
    const dateTime = DATE_TIME.exec(value);
    if (dateTime) return parseDateTime(dateTime, value, path);
    throw invalidPolicy(path, EXPECTED);
}

function readBound(input: Record<string, unknown>, key: 'start' | 'end', path: PropertyPath): Bound | undefined {
    const value = input[key];
    if (value === undefined || value === null) return undefined;
    return parseBound(value, [...path, key]);
}

/** An end is inclusive: a date covers its whole UTC day, a date-time its own millisecond. */
function exclusiveEnd(bound: Bound): number {
    return bound.ms + (bound.dateOnly ? DAY_MS : 1);
}

function dateWindow(policy: DatePolicy): DateWindow {
    return {
        start: policy.start === undefined ? -Infinity : parseBound(policy.start, ['start']).ms,
        endExclusive: policy.end === undefined ? Infinity : exclusiveEnd(parseBound(policy.end, ['end'])),
    };
}

function validateDate(input: Record<string, unknown>, path: PropertyPath): DatePolicy {
    const invert = readInvert(input, path);
    const start = readBound(input, 'start', path);
    const end = readBound(input, 'end', path);
    if (start === undefined && end === undefined) {
        throw invalidPolicy([...path, 'start'], 'start, end or both are required');
    }
    // an empty window is almost certainly a swapped pair, not a policy meant to always fail
    if (start !== undefined && end !== undefined && start.ms >= exclusiveEnd(end)) {
        throw invalidPolicy([...path, 'end'], `'${end.canonical}' is before start '${start.canonical}'`);
    }
    const policy: DatePolicy = { type: 'date', invert };
    if (start !== undefined) policy.start = start.canonical;
    if (end !== undefined) policy.end = end.canonical;
    return policy;
}

function buildDate(policy: DatePolicy): CompiledPolicy {
    const { start, endExclusive } = dateWindow(policy);
    const evaluate = (ctx: EvaluationContext): Outcome => {
        const now = ctx.now('date');
        return passIf(now >= start && now < endExclusive, policy.invert);
    };
    return {
        policy,
        evaluate,
        // the instant is known before any row is read, so lowering always settles
        lower: (ctx) => evaluate(ctx) === Outcome.PASS,
        containsBinding: false,
    };
}

function nextDateChange(policy: DatePolicy, now: number): number | null {
    const { start, endExclusive } = dateWindow(policy);
    const upcoming = [start, endExclusive].filter((boundary) => Number.isFinite(boundary) && boundary > now);
    return upcoming.length === 0 ? null : Math.min(...upcoming);
}

export const datePolicyType: PolicyTypeDefinition<DatePolicy> = {
    type: 'date',
    validate: validateDate,
    build: buildDate,
    nextChange: nextDateChange,
};
