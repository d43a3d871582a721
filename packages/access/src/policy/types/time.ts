import type { PropertyPath } from '../../errors.js';
import { Outcome, passIf } from '../outcome.js';
import type { CanonicalPolicy, CompiledPolicy, EvaluationContext, PolicyTypeDefinition } from '../types.js';
import { invalidPolicy, readInvert, readOptionalInteger } from '../validation.js';

export type TimeInterval = 'daily' | 'weekly' | 'monthly' | 'yearly';

/**
 * A recurring window of the UTC day, optionally restricted to one weekday, day of the month or
 * day of the year. Times are UTC so every evaluator agrees whatever its host's time zone.
 */
export interface TimePolicy extends CanonicalPolicy {
    type: 'time';
    /** `HH:MM:SS`; absent means 00:00:00 */
    start?: string;
    /** `HH:MM:SS`, inclusive of the whole second; absent means through 23:59:59 */
    end?: string;
    interval: TimeInterval;
    /** 0 = Sunday (UTC weekday); only with interval 'weekly' */
    dayOfWeek?: number;
    /** 1–31; only with interval 'monthly' */
    dayOfMonth?: number;
    /** 1–366, 1 January = 1; only with interval 'yearly' */
    dayOfYear?: number;
}

interface TimeWindow {
    /** ms since 00:00:00Z */
    start: number;
    /** ms since 00:00:00Z of the first instant after the window (up to DAY_MS) */
    endExclusive: number;
    /** start after end: the window runs over midnight into the next UTC day */
    wraps: boolean;
}

type DayField = 'dayOfWeek' | 'dayOfMonth' | 'dayOfYear';

const DAY_MS = 86_400_000;
const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;
const INTERVALS: readonly TimeInterval[] = ['daily', 'weekly', 'monthly', 'yearly'];
const DAY_FIELDS: readonly { key: DayField; interval: TimeInterval; min: number; max: number }[] = [
    { key: 'dayOfWeek', interval: 'weekly', min: 0, max: 6 },
    { key: 'dayOfMonth', interval: 'monthly', min: 1, max: 31 },
    { key: 'dayOfYear', interval: 'yearly', min: 1, max: 366 },
];

/** Euclidean remainder: instants before 1970 still map to a time of day in [0, DAY_MS). */
function msOfDay(instant: number): number {
    return ((instant % DAY_MS) + DAY_MS) % DAY_MS;
}

/** The canonical `HH:MM:SS` of a 24-hour time. */
function readTimeOfDay(input: Record<string, unknown>, key: 'start' | 'end', path: PropertyPath): string | undefined {
    const value = input[key];
    if (value === undefined || value === null) return undefined;
    const match = typeof value === 'string' ? TIME_OF_DAY.exec(value) : null;
    if (!match) throw invalidPolicy([...path, key], 'expected a 24-hour UTC time HH:MM or HH:MM:SS');
    return `${match[1]}:${match[2]}:${match[3] ?? '00'}`;
}

function secondsOf(time: string): number {
    const [hours = 0, minutes = 0, seconds = 0] = time.split(':').map(Number);
    return (hours * 60 + minutes) * 60 + seconds;
}

function readInterval(input: Record<string, unknown>, path: PropertyPath): TimeInterval {
    const value = input.interval;
    if (value === undefined || value === null) return 'daily';
    const interval = INTERVALS.find((item) => item === value);
    if (interval === undefined) throw invalidPolicy([...path, 'interval'], `expected one of ${INTERVALS.join(', ')}`);
    return interval;
}

function validateTime(input: Record<string, unknown>, path: PropertyPath): TimePolicy {
    const policy: TimePolicy = { type: 'time', invert: readInvert(input, path), interval: readInterval(input, path) };
    const start = readTimeOfDay(input, 'start', path);
    const end = readTimeOfDay(input, 'end', path);
    if (start !== undefined) policy.start = start;
    if (end !== undefined) policy.end = end;
    for (const field of DAY_FIELDS) {
        const day = readOptionalInteger(input, field.key, path, field.min, field.max);
        if (day === undefined) continue;
        // refused rather than ignored: a silently dropped day would widen the window
        if (policy.interval !== field.interval) {
            throw invalidPolicy([...path, field.key], `is only allowed with interval '${field.interval}'`);
        }
        policy[field.key] = day;
    }
    return policy;
}

function timeWindow(policy: TimePolicy): TimeWindow {
    const start = policy.start === undefined ? 0 : secondsOf(policy.start);
    const end = policy.end === undefined ? 86_399 : secondsOf(policy.end);
    return { start: start * 1000, endExclusive: (end + 1) * 1000, wraps: start > end };
}

function dayOfYear(date: Date): number {
    const january1 = new Date(date.getTime());
    january1.setUTCMonth(0, 1);
    return Math.round((date.getTime() - january1.getTime()) / DAY_MS) + 1;
}

function hasDayField(policy: TimePolicy): boolean {
    return policy.dayOfWeek !== undefined || policy.dayOfMonth !== undefined || policy.dayOfYear !== undefined;
}

/** Whether the UTC day containing `instant` is one the interval's day field selects. */
function dayMatches(policy: TimePolicy, instant: number): boolean {
    const date = new Date(instant);
    switch (policy.interval) {
        case 'weekly':
            return policy.dayOfWeek === undefined || date.getUTCDay() === policy.dayOfWeek;
        case 'monthly':
            return policy.dayOfMonth === undefined || date.getUTCDate() === policy.dayOfMonth;
        case 'yearly':
            return policy.dayOfYear === undefined || dayOfYear(date) === policy.dayOfYear;
        default:
            return true;
    }
}

function inWindow(policy: TimePolicy, window: TimeWindow, instant: number): boolean {
    const time = msOfDay(instant);
    if (!window.wraps) {
        return time >= window.start && time < window.endExclusive && dayMatches(policy, instant);
    }
    if (time >= window.start) return dayMatches(policy, instant);
    // after midnight the window still belongs to the day it started on (Friday 22:00–02:00)
    if (time < window.endExclusive) return dayMatches(policy, instant - DAY_MS);
    return false;
}

function buildTime(policy: TimePolicy): CompiledPolicy {
    const window = timeWindow(policy);
    const evaluate = (ctx: EvaluationContext): Outcome => passIf(inWindow(policy, window, ctx.now('time')), policy.invert);
    return {
        policy,
        evaluate,
        // the instant is known before any row is read, so lowering always settles
        lower: (ctx) => evaluate(ctx) === Outcome.PASS,
        containsBinding: false,
    };
}

function coversWholeDay(window: TimeWindow): boolean {
    return window.wraps ? window.start === window.endExclusive : window.start === 0 && window.endExclusive === DAY_MS;
}

/**
 * Candidate boundaries only, not a proof that the outcome flips there: an early answer merely
 * shortens a cache lifetime, a late one would serve a stale decision.
 */
function nextTimeChange(policy: TimePolicy, now: number): number | null {
    const window = timeWindow(policy);
    if (!hasDayField(policy) && coversWholeDay(window)) return null;
    // No separate midnight candidate for a day field: a window that touches midnight has its start
    // (00:00:00) or its exclusive end (24:00:00) there, and a wrapping window keeps the day it started on.
    const offsets = [window.start, window.endExclusive];
    const midnight = now - msOfDay(now);
    return Math.min(...offsets.map((offset) => (midnight + offset > now ? midnight + offset : midnight + DAY_MS + offset)));
}

export const timePolicyType: PolicyTypeDefinition<TimePolicy> = {
    type: 'time',
    validate: validateTime,
    build: buildTime,
    nextChange: nextTimeChange,
};
