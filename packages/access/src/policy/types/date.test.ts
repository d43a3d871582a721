import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AccessErrorCode, type AccessError } from '../../errors.js';
import { createPolicyEngine, PolicyEvaluationContext } from '../engine.js';
import { datePolicyType } from './date.js';

// Far from UTC (UTC+14) so any accidental use of local time shows up as a failure.
const originalTimeZone = process.env.TZ;
process.env.TZ = 'Pacific/Kiritimati';
afterAll(() => {
    if (originalTimeZone === undefined) delete process.env.TZ;
    else process.env.TZ = originalTimeZone;
});

const engine = createPolicyEngine([datePolicyType]);

function at(policy: Record<string, unknown>, instant: string): string {
    return engine.evaluate({ type: 'date', ...policy }, { date: instant });
}

function refusal(input: Record<string, unknown>): AccessError {
    try {
        engine.validate({ type: 'date', ...input });
    } catch (error) {
        return error as AccessError;
    }
    throw new Error('expected the policy to be refused');
}

describe('date policy: time zone of the host', () => {
    it('runs under a non-UTC zone', () => {
        expect(new Date(Date.UTC(2026, 2, 1, 12)).getTimezoneOffset()).toBe(-840);
        expect(new Date(Date.UTC(2026, 2, 1, 12)).getTimezoneOffset()).not.toBe(0);
    });

    it('reads day bounds in UTC, not in the local zone', () => {
        // 10:00Z on 1 March is already 2 March in Kiritimati
        expect(at({ end: '2026-03-01' }, '2026-03-01T10:00:00Z')).toBe('pass');
        expect(at({ start: '2026-03-02' }, '2026-03-01T10:00:00Z')).toBe('fail');
        expect(at({ start: '2026-03-02' }, '2026-03-02T01:00:00+14:00')).toBe('fail');
    });
});

describe('date policy: evaluation', () => {
    it('begins a date-only start at 00:00:00.000Z', () => {
        expect(at({ start: '2026-03-01' }, '2026-02-28T23:59:59.999Z')).toBe('fail');
        expect(at({ start: '2026-03-01' }, '2026-03-01T00:00:00.000Z')).toBe('pass');
    });

    it('includes the whole UTC day of a date-only end', () => {
        expect(at({ end: '2026-03-31' }, '2026-03-31T23:59:59.999Z')).toBe('pass');
        expect(at({ end: '2026-03-31' }, '2026-04-01T00:00:00.000Z')).toBe('fail');
    });

    it('covers one whole day when start and end are the same date', () => {
        const day = { start: '2026-03-01', end: '2026-03-01' };
        expect(at(day, '2026-02-28T23:59:59.999Z')).toBe('fail');
        expect(at(day, '2026-03-01T00:00:00.000Z')).toBe('pass');
        expect(at(day, '2026-03-01T23:59:59.999Z')).toBe('pass');
        expect(at(day, '2026-03-02T00:00:00.000Z')).toBe('fail');
    });

    it('treats date-time bounds as instants, the end inclusive', () => {
        const window = { start: '2026-03-01T09:00:00+02:00', end: '2026-03-01T12:00:00Z' };
        expect(at(window, '2026-03-01T06:59:59.999Z')).toBe('fail');
        expect(at(window, '2026-03-01T07:00:00.000Z')).toBe('pass');
        expect(at(window, '2026-03-01T12:00:00.000Z')).toBe('pass');
        expect(at(window, '2026-03-01T12:00:00.001Z')).toBe('fail');
    });

    it('inverts', () => {
        expect(at({ end: '2026-03-31', invert: true }, '2026-03-31T23:59:59.999Z')).toBe('fail');
        expect(at({ end: '2026-03-31', invert: true }, '2026-04-01T00:00:00.000Z')).toBe('pass');
    });

    it('uses the clock when data carries no date, and ignores data.time', () => {
        const clock = (): number => Date.UTC(2026, 3, 1);
        expect(engine.evaluate({ type: 'date', end: '2026-03-31' }, {}, { clock })).toBe('fail');
        expect(engine.evaluate({ type: 'date', end: '2026-03-31' }, { time: '2026-03-01T00:00:00Z' }, { clock })).toBe('fail');
    });

    it('lowers to a settled boolean', () => {
        const compiled = engine.compile({ type: 'date', end: '2026-03-31', invert: true });
        const context = (date: string): PolicyEvaluationContext => new PolicyEvaluationContext(null, { date }, null, () => 0);
        expect(compiled.lower(context('2026-03-31T12:00:00Z'))).toBe(false);
        expect(compiled.lower(context('2026-04-01T00:00:00Z'))).toBe(true);
        expect(compiled.containsBinding).toBe(false);
    });
});

describe('date policy: validation', () => {
    it('keeps dates, normalizes date-times to UTC and drops entity columns', () => {
        const policy = engine.validate({
            type: 'date', id: 'p1', name: 'spring', realmId: 'r1',
            start: '2026-03-01', end: '2026-03-31T18:30+05:30',
        });
        expect(policy).toEqual({ type: 'date', invert: false, start: '2026-03-01', end: '2026-03-31T13:00:00.000Z' });
        expect(engine.validate(policy)).toEqual(policy);
    });

    it('accepts fractions, lower-case designators and leap days', () => {
        expect(engine.validate({ type: 'date', start: '2026-03-01t10:00:00.123456z' }).start).toBe('2026-03-01T10:00:00.123Z');
        expect(engine.validate({ type: 'date', end: '2024-02-29' }).end).toBe('2024-02-29');
    });

    it.each([
        ['start', '2026-02-30'],
        ['start', '2025-02-29'],
        ['end', '2026-13-01'],
        ['end', '2026-3-1'],
        ['start', '2026-03-01T10:00'],
        ['start', '2026-03-01T24:00Z'],
        ['end', '2026-03-01T10:00+25:00'],
        ['end', '2026-02-30T10:00Z'],
        ['start', 20260301],
        ['end', ''],
    ])('refuses %s = %j, naming the key', (key, value) => {
        const error = refusal({ [key]: value });
        expect(error.code).toBe(AccessErrorCode.INVALID_POLICY);
        expect(error.path).toEqual([key]);
        expect(error.message).toMatch(new RegExp(`^${key}: `));
    });

    it('requires a bound', () => {
        const error = refusal({ name: 'nothing' });
        expect(error.code).toBe(AccessErrorCode.INVALID_POLICY);
        expect(error.message).toMatch(/start/);
    });

    it('refuses a start after the end', () => {
        expect(refusal({ start: '2026-03-02', end: '2026-03-01' }).path).toEqual(['end']);
        expect(refusal({ start: '2026-03-02T00:00:00Z', end: '2026-03-01' }).path).toEqual(['end']);
        expect(refusal({ start: '2026-03-01T12:00:00.001Z', end: '2026-03-01T12:00:00Z' }).path).toEqual(['end']);
        expect(engine.validate({ type: 'date', start: '2026-03-01T23:59:59Z', end: '2026-03-01' }).end).toBe('2026-03-01');
    });
});

describe('date policy: nextChange', () => {
    const next = (policy: Record<string, unknown>, now: string): string | null => {
        const change = engine.nextChange({ type: 'date', ...policy }, Date.parse(now));
        return change === null ? null : new Date(change).toISOString();
    };

    it('returns the next boundary strictly after now', () => {
        const month = { start: '2026-03-01', end: '2026-03-31' };
        expect(next(month, '2026-02-15T00:00:00Z')).toBe('2026-03-01T00:00:00.000Z');
        expect(next(month, '2026-03-01T00:00:00Z')).toBe('2026-04-01T00:00:00.000Z');
        expect(next(month, '2026-04-01T00:00:00Z')).toBeNull();
        expect(next({ end: '2026-03-01T12:00:00Z' }, '2026-03-01T12:00:00Z')).toBe('2026-03-01T12:00:00.001Z');
        expect(next({ start: '2026-03-01' }, '2026-03-05T00:00:00Z')).toBeNull();
    });

    it('never skips a change', () => {
        const base = Date.UTC(2026, 2, 1);
        const offset = fc.integer({ min: -10 * 86_400_000, max: 10 * 86_400_000 });
        const bound = fc.oneof(
            offset.map((ms) => new Date(base + ms).toISOString()),
            offset.map((ms) => new Date(base + ms).toISOString().slice(0, 10)),
        );
        fc.assert(fc.property(fc.option(bound), fc.option(bound), offset, fc.boolean(), (start, end, nowOffset, invert) => {
            const input = { type: 'date', start, end, invert };
            let policy;
            try {
                policy = engine.validate(input);
            } catch {
                return;
            }
            const now = base + nowOffset;
            const change = engine.nextChange(policy, now);
            const until = change ?? now + 30 * 86_400_000;
            expect(until).toBeGreaterThan(now);
            const outcome = engine.evaluate(policy, { date: now });
            for (const sample of [now, until - 1, (now + until) / 2, now + (until - now) / 7]) {
                expect(engine.evaluate(policy, { date: Math.floor(sample) })).toBe(outcome);
            }
        }));
    });
});
