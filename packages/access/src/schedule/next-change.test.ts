import { describe, expect, it } from 'vitest';
import { AccessErrorCode, type AccessError } from '../errors.js';
import { createPolicyEngine } from '../policy/engine.js';
import { compositePolicyType } from '../policy/types/composite.js';
import { datePolicyType } from '../policy/types/date.js';
import { timePolicyType } from '../policy/types/time.js';
import { getNextPolicyChange, secondsUntilNextPolicyChange } from './next-change.js';

const NOW = Date.parse('2026-03-02T08:00:00Z');

const office = { type: 'time', start: '09:00', end: '17:00' };
const spring = { type: 'date', start: '2026-03-01', end: '2026-05-31' };
const nested = {
    type: 'composite',
    decisionStrategy: 'affirmative',
    children: [
        spring,
        { type: 'composite', children: [{ type: 'time', start: '08:30', end: '12:00', interval: 'weekly', dayOfWeek: 1 }] },
    ],
};

function thrown(run: () => unknown): AccessError {
    try {
        run();
    } catch (error) {
        return error as AccessError;
    }
    throw new Error('expected an error');
}

describe('getNextPolicyChange', () => {
    it('returns the earliest change over every node of the tree', () => {
        expect(getNextPolicyChange(office, NOW)?.toISOString()).toBe('2026-03-02T09:00:00.000Z');
        expect(getNextPolicyChange(nested, new Date(NOW))?.toISOString()).toBe('2026-03-02T08:30:00.000Z');
        expect(getNextPolicyChange(spring, NOW)?.toISOString()).toBe('2026-06-01T00:00:00.000Z');
    });

    it('is null when time cannot change the outcome', () => {
        expect(getNextPolicyChange({ type: 'composite', children: [{ type: 'time' }] }, NOW)).toBeNull();
        expect(getNextPolicyChange({ type: 'date', end: '2026-01-31' }, NOW)).toBeNull();
    });

    it('accepts another engine', () => {
        const engine = createPolicyEngine([compositePolicyType, datePolicyType, timePolicyType]);
        expect(getNextPolicyChange(nested, NOW, engine)?.toISOString()).toBe('2026-03-02T08:30:00.000Z');
    });

    it('validates the tree and the instant', () => {
        const error = thrown(() => getNextPolicyChange({ type: 'composite', children: [{ type: 'time', start: '24:00' }] }, NOW));
        expect(error.code).toBe(AccessErrorCode.INVALID_POLICY);
        expect(error.path).toEqual(['children', 0, 'start']);
        expect(thrown(() => getNextPolicyChange(office, new Date(Number.NaN))).code).toBe(AccessErrorCode.INVALID_INPUT);
    });
});

describe('secondsUntilNextPolicyChange', () => {
    it('rounds the earliest change up to whole seconds', () => {
        expect(secondsUntilNextPolicyChange([spring, office], NOW)).toBe(3600);
        expect(secondsUntilNextPolicyChange([office], NOW + 1)).toBe(3600);
        expect(secondsUntilNextPolicyChange([office], NOW + 999)).toBe(3600);
        expect(secondsUntilNextPolicyChange([office], NOW + 1000)).toBe(3599);
        expect(secondsUntilNextPolicyChange([{ type: 'date', end: '2026-03-02T08:00:00.000Z' }], NOW)).toBe(1);
    });

    it('is null without any time-dependent tree', () => {
        expect(secondsUntilNextPolicyChange([], NOW)).toBeNull();
        expect(secondsUntilNextPolicyChange([{ type: 'time' }, { type: 'composite', children: [] }], NOW)).toBeNull();
    });

    it('names the position of a malformed tree', () => {
        const error = thrown(() => secondsUntilNextPolicyChange([office, { type: 'date' }], NOW));
        expect(error.code).toBe(AccessErrorCode.INVALID_POLICY);
        expect(error.path).toEqual(['policies', 1, 'start']);
        expect(thrown(() => secondsUntilNextPolicyChange(office as unknown as unknown[], NOW)).path).toEqual(['policies']);
    });
});
