import { describe, expect, it } from 'vitest';
import { Outcome, combineOutcomes, invertOutcome } from './outcome.js';

const { PASS, FAIL, PENDING } = Outcome;

describe('outcomes', () => {
    it('invert of pending stays pending', () => {
        expect(invertOutcome(PENDING)).toBe(PENDING);
        expect(invertOutcome(PASS)).toBe(FAIL);
        expect(invertOutcome(FAIL)).toBe(PASS);
    });

    it('an empty list passes under every strategy (no restriction at that layer)', () => {
        for (const strategy of ['unanimous', 'affirmative', 'consensus'] as const) {
            expect(combineOutcomes([], strategy)).toBe(PASS);
        }
    });

    it('unanimous: a fail decides, otherwise a pending keeps it open', () => {
        expect(combineOutcomes([PASS, PASS], 'unanimous')).toBe(PASS);
        expect(combineOutcomes([PASS, PENDING, FAIL], 'unanimous')).toBe(FAIL);
        expect(combineOutcomes([PASS, PENDING], 'unanimous')).toBe(PENDING);
    });

    it('affirmative: a pass decides, otherwise a pending keeps it open', () => {
        expect(combineOutcomes([FAIL, PASS], 'affirmative')).toBe(PASS);
        expect(combineOutcomes([FAIL, PENDING], 'affirmative')).toBe(PENDING);
        expect(combineOutcomes([FAIL, FAIL], 'affirmative')).toBe(FAIL);
    });

    it('consensus: more passes than fails; a tie fails; pending only when it could swing the count', () => {
        expect(combineOutcomes([PASS, PASS, FAIL], 'consensus')).toBe(PASS);
        expect(combineOutcomes([PASS, FAIL], 'consensus')).toBe(FAIL);
        expect(combineOutcomes([PASS, FAIL, PENDING], 'consensus')).toBe(PENDING);
        expect(combineOutcomes([PASS, PASS, PASS, FAIL, PENDING], 'consensus')).toBe(PASS);
        expect(combineOutcomes([FAIL, FAIL, PENDING], 'consensus')).toBe(FAIL);
    });
});
