import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AccessErrorCode, type AccessError } from '../../errors.js';
import { createPolicyEngine, PolicyEvaluationContext } from '../engine.js';
import type { CanonicalPolicy } from '../types.js';
import { timePolicyType } from './time.js';

// Far from UTC (UTC+14) so any accidental use of local time shows up as a failure.
const originalTimeZone = process.env.TZ;
process.env.TZ = 'Pacific/Kiritimati';
afterAll(() => {
    if (originalTimeZone === undefined) delete process.env.TZ;
    else process.env.TZ = originalTimeZone;
});

const DAY_MS = 86_400_000;
const engine = createPolicyEngine([timePolicyType]);

function at(policy: Record<string, unknown>, instant: string | number): string {
    return engine.evaluate({ type: 'time', ...policy }, { time: instant });
}

function refusal(input: Record<string, unknown>): AccessError {
    try {
        engine.validate({ type: 'time', ...input });
    } catch (error) {
        return error as AccessError;
    }
    throw new Error('expected the policy to be refused');
}

describe('time policy: time zone of the host', () => {
    it('runs under a non-UTC zone', () => {
        expect(new Date(Date.UTC(2026, 2, 1, 12)).getTimezoneOffset()).toBe(-840);
        expect(new Date(Date.UTC(2026, 2, 1, 12)).getTimezoneOffset()).not.toBe(0);
    });

    it('reads the weekday in UTC: Monday in UTC+14 is still Sunday', () => {
        const instant = '2026-03-02T01:00:00+14:00'; // 2026-03-01T11:00Z, a Sunday
        expect(at({ interval: 'weekly', dayOfWeek: 0 }, instant)).toBe('pass');
        expect(at({ interval: 'weekly', dayOfWeek: 1 }, instant)).toBe('fail');
        expect(at({ start: '11:00', end: '11:00' }, instant)).toBe('pass');
    });
});

describe('time policy: evaluation', () => {
    it('includes the whole end second', () => {
        const office = { start: '09:00', end: '17:00' };
        expect(at(office, '2026-03-02T08:59:59.999Z')).toBe('fail');
        expect(at(office, '2026-03-02T09:00:00.000Z')).toBe('pass');
        expect(at(office, '2026-03-02T17:00:00.999Z')).toBe('pass');
        expect(at(office, '2026-03-02T17:00:01.000Z')).toBe('fail');
    });

    it('defaults a missing start to 00:00:00 and a missing end to 23:59:59', () => {
        expect(at({ end: '06:00' }, '2026-03-02T00:00:00.000Z')).toBe('pass');
        expect(at({ end: '06:00' }, '2026-03-02T06:00:01.000Z')).toBe('fail');
        expect(at({ start: '18:00' }, '2026-03-02T23:59:59.999Z')).toBe('pass');
        expect(at({ start: '18:00' }, '2026-03-03T00:00:00.000Z')).toBe('fail');
        expect(at({}, '2026-03-03T00:00:00.000Z')).toBe('pass');
    });

    it('tests dayOfWeek against the UTC day', () => {
        const sunday = { interval: 'weekly', dayOfWeek: 0 };
        expect(at(sunday, '2026-03-01T23:30:00Z')).toBe('pass');
        expect(at(sunday, '2026-03-02T00:30:00Z')).toBe('fail');
        expect(at(sunday, '2026-02-28T23:59:59.999Z')).toBe('fail');
        expect(at(sunday, '2026-03-01T00:00:00.000Z')).toBe('pass');
    });

    it('wraps midnight and keeps the day the window started on', () => {
        const fridayNight = { start: '22:00', end: '02:00', interval: 'weekly', dayOfWeek: 5 };
        expect(at(fridayNight, '2026-03-06T21:59:59.999Z')).toBe('fail');
        expect(at(fridayNight, '2026-03-06T22:00:00.000Z')).toBe('pass');
        expect(at(fridayNight, '2026-03-07T01:30:00.000Z')).toBe('pass');
        expect(at(fridayNight, '2026-03-07T02:00:00.999Z')).toBe('pass');
        expect(at(fridayNight, '2026-03-07T02:00:01.000Z')).toBe('fail');
        expect(at(fridayNight, '2026-03-06T01:00:00.000Z')).toBe('fail');
        expect(at(fridayNight, '2026-03-07T23:00:00.000Z')).toBe('fail');
        expect(at({ start: '22:00', end: '02:00' }, '2026-03-07T12:00:00Z')).toBe('fail');
    });

    it('matches dayOfMonth and dayOfYear, including day 366 of a leap year', () => {
        expect(at({ interval: 'monthly', dayOfMonth: 31 }, '2026-01-31T12:00:00Z')).toBe('pass');
        expect(at({ interval: 'monthly', dayOfMonth: 31 }, '2026-04-30T12:00:00Z')).toBe('fail');
        expect(at({ interval: 'yearly', dayOfYear: 1 }, '2026-01-01T00:00:00Z')).toBe('pass');
        expect(at({ interval: 'yearly', dayOfYear: 366 }, '2024-12-31T23:59:59.999Z')).toBe('pass');
        expect(at({ interval: 'yearly', dayOfYear: 366 }, '2025-12-31T12:00:00Z')).toBe('fail');
        expect(at({ interval: 'yearly', dayOfYear: 365 }, '2025-12-31T12:00:00Z')).toBe('pass');
        expect(at({ interval: 'yearly', dayOfYear: 60 }, '2024-02-29T12:00:00Z')).toBe('pass');
    });

    it('inverts, and uses the clock only without data.time', () => {
        expect(at({ start: '09:00', end: '17:00', invert: true }, '2026-03-02T12:00:00Z')).toBe('fail');
        expect(at({ start: '09:00', end: '17:00', invert: true }, '2026-03-02T18:00:00Z')).toBe('pass');
        const clock = (): number => Date.parse('2026-03-02T12:00:00Z');
        expect(engine.evaluate({ type: 'time', start: '09:00', end: '17:00' }, {}, { clock })).toBe('pass');
        expect(engine.evaluate({ type: 'time', start: '09:00', end: '17:00' }, { date: '2026-03-02T20:00:00Z' }, { clock })).toBe('pass');
    });

    it('lowers to a settled boolean', () => {
        const compiled = engine.compile({ type: 'time', start: '09:00', end: '17:00' });
        const context = (time: string): PolicyEvaluationContext => new PolicyEvaluationContext(null, { time }, null, () => 0);
        expect(compiled.lower(context('2026-03-02T12:00:00Z'))).toBe(true);
        expect(compiled.lower(context('2026-03-02T18:00:00Z'))).toBe(false);
    });
});

describe('time policy: validation', () => {
    it('writes HH:MM:SS, defaults the interval and drops entity columns', () => {
        const policy = engine.validate({ type: 'time', id: 'p', realmId: null, start: '09:30', end: '17:45:30', interval: 'weekly', dayOfWeek: 1 });
        expect(policy).toEqual({ type: 'time', invert: false, start: '09:30:00', end: '17:45:30', interval: 'weekly', dayOfWeek: 1 });
        expect(engine.validate(policy)).toEqual(policy);
        expect(engine.validate({ type: 'time', name: 'always' })).toEqual({ type: 'time', invert: false, interval: 'daily' });
    });

    it.each([
        [{ start: '24:00' }, 'start'],
        [{ end: '7:5' }, 'end'],
        [{ end: '12:60' }, 'end'],
        [{ start: '12:00:60' }, 'start'],
        [{ start: 900 }, 'start'],
        [{ interval: 'hourly' }, 'interval'],
        [{ interval: 'weekly', dayOfWeek: 7 }, 'dayOfWeek'],
        [{ interval: 'weekly', dayOfWeek: 1.5 }, 'dayOfWeek'],
        [{ dayOfWeek: 1 }, 'dayOfWeek'],
        [{ interval: 'monthly', dayOfWeek: 1 }, 'dayOfWeek'],
        [{ interval: 'monthly', dayOfMonth: 32 }, 'dayOfMonth'],
        [{ interval: 'weekly', dayOfMonth: 1 }, 'dayOfMonth'],
        [{ interval: 'yearly', dayOfYear: 0 }, 'dayOfYear'],
        [{ interval: 'monthly', dayOfYear: 1 }, 'dayOfYear'],
    ])('refuses %j, naming %s', (input, key) => {
        const error = refusal(input);
        expect(error.code).toBe(AccessErrorCode.INVALID_POLICY);
        expect(error.path).toEqual([key]);
        expect(error.message).toMatch(new RegExp(`^${key}: `));
    });

    it('says which interval a day field needs', () => {
        expect(refusal({ dayOfWeek: 1 }).message).toMatch(/weekly/);
    });
});

describe('time policy: nextChange', () => {
    const next = (policy: Record<string, unknown>, now: string): string | null => {
        const change = engine.nextChange({ type: 'time', ...policy }, Date.parse(now));
        return change === null ? null : new Date(change).toISOString();
    };

    it('returns the next start or end+1s, today or tomorrow', () => {
        const office = { start: '09:00', end: '17:00' };
        expect(next(office, '2026-03-02T08:00:00Z')).toBe('2026-03-02T09:00:00.000Z');
        expect(next(office, '2026-03-02T09:00:00Z')).toBe('2026-03-02T17:00:01.000Z');
        expect(next(office, '2026-03-02T18:00:00Z')).toBe('2026-03-03T09:00:00.000Z');
        expect(next({ start: '18:00' }, '2026-03-02T19:00:00Z')).toBe('2026-03-03T00:00:00.000Z');
    });

    it('reaches midnight only where a window touches it, and is null when nothing can change', () => {
        expect(next({ interval: 'weekly', dayOfWeek: 0 }, '2026-03-01T11:00:00Z')).toBe('2026-03-02T00:00:00.000Z');
        expect(next({ start: '09:00', end: '17:00', interval: 'weekly', dayOfWeek: 1 }, '2026-03-01T20:00:00Z'))
            .toBe('2026-03-02T09:00:00.000Z');
        expect(next({ start: '22:00', end: '02:00', interval: 'weekly', dayOfWeek: 5 }, '2026-03-06T23:00:00Z'))
            .toBe('2026-03-07T02:00:01.000Z');
        expect(next({}, '2026-03-01T11:00:00Z')).toBeNull();
        expect(next({ start: '00:00', end: '23:59:59', interval: 'weekly' }, '2026-03-01T11:00:00Z')).toBeNull();
        expect(next({ start: '10:00', end: '09:59:59' }, '2026-03-01T11:00:00Z')).toBeNull();
    });

    it('never skips a change', () => {
        const time = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 1, 30, 59), fc.constantFrom(0, 1, 59))
            .map(([h, m, s]) => [h, m, s].map((part) => String(part).padStart(2, '0')).join(':'));
        const days = fc.oneof(
            fc.constant({ interval: 'daily' }),
            fc.option(fc.integer({ min: 0, max: 6 })).map((dayOfWeek) => ({ interval: 'weekly', dayOfWeek })),
            fc.option(fc.integer({ min: 28, max: 31 })).map((dayOfMonth) => ({ interval: 'monthly', dayOfMonth })),
            fc.option(fc.integer({ min: 58, max: 62 })).map((dayOfYear) => ({ interval: 'yearly', dayOfYear })),
        );
        const instant = fc.integer({ min: Date.UTC(2023, 0, 1), max: Date.UTC(2027, 0, 1) });
        const fractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 });
        fc.assert(fc.property(fc.option(time), fc.option(time), days, fc.boolean(), instant, fractions, (start, end, day, invert, now, picks) => {
            const policy = engine.validate({ type: 'time', start, end, invert, ...day });
            const change = engine.nextChange(policy, now);
            const until = change ?? now + 8 * DAY_MS;
            expect(until).toBeGreaterThan(now);
            expect(until - now).toBeLessThanOrEqual(change === null ? 8 * DAY_MS : DAY_MS);
            const samples = [now, until - 1, ...picks.map((pick) => now + Math.floor(pick * (until - now)))];
            samples.push(...criticalInstants(policy, now, until));
            const compiled = engine.compile(policy);
            const outcome = compiled.evaluate(new PolicyEvaluationContext(null, { time: now }, null, () => 0));
            for (const sample of samples.filter((ms) => ms >= now && ms < until)) {
                expect(compiled.evaluate(new PolicyEvaluationContext(null, { time: sample }, null, () => 0))).toBe(outcome);
            }
        }), { numRuns: 500 });
    });
});

/** Every instant in [from, to) either side of a midnight, a start or an end+1s: where changes can occur. */
function criticalInstants(policy: CanonicalPolicy, from: number, to: number): number[] {
    const seconds = (value: unknown): number | null => {
        if (typeof value !== 'string') return null;
        const [h = 0, m = 0, s = 0] = value.split(':').map(Number);
        return ((h * 60 + m) * 60 + s) * 1000;
    };
    const start = seconds(policy.start);
    const end = seconds(policy.end);
    const offsets = [0, start, end === null ? null : end + 1000].filter((offset): offset is number => offset !== null);
    const out: number[] = [];
    for (let midnight = from - (from % DAY_MS); midnight < to; midnight += DAY_MS) {
        for (const offset of offsets) out.push(midnight + offset - 1, midnight + offset);
    }
    return out;
}
