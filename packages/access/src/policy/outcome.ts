import { isDecisionStrategy, type DecisionStrategy } from '@realmgate/core';
import { invalidInput } from '../errors.js';

/**
 * Three-valued policy outcome. A policy that did not apply (for example realm reach without a
 * resource realm) returns PASS without applying its invert: "neutral pass".
 */
export const Outcome = {
    FAIL: 0,
    PASS: 1,
    /** the data the policy needs is missing; pre-evaluation lets it pass, evaluation denies */
    PENDING: 2,
} as const;

export type Outcome = typeof Outcome[keyof typeof Outcome];

/** Invert keeps "unknown" unknown. */
export function invertOutcome(outcome: Outcome): Outcome {
    if (outcome === Outcome.PASS) return Outcome.FAIL;
    if (outcome === Outcome.FAIL) return Outcome.PASS;
    return outcome;
}

export function maybeInvert(outcome: Outcome, invert: boolean): Outcome {
    return invert ? invertOutcome(outcome) : outcome;
}

export function passIf(condition: boolean, invert: boolean): Outcome {
    return condition !== invert ? Outcome.PASS : Outcome.FAIL;
}

/**
 * Combine outcomes under a decision strategy. PENDING counts as unknown: the result is PENDING
 * exactly when it would differ between "every pending passes" and "every pending fails".
 * An empty list passes: no restriction at that layer (spec: empty definition policies).
 */
export function combineOutcomes(outcomes: readonly Outcome[], strategy: DecisionStrategy): Outcome {
    if (!isDecisionStrategy(strategy)) throw invalidInput(['strategy'], "expected 'unanimous', 'affirmative' or 'consensus'");
    if (!Array.isArray(outcomes) || outcomes.some((outcome) => outcome !== 0 && outcome !== 1 && outcome !== 2)) {
        throw invalidInput(['outcomes'], 'expected a list of Outcome values');
    }
    let pass = 0;
    let fail = 0;
    let pending = 0;
    for (const outcome of outcomes) {
        if (outcome === Outcome.FAIL) fail++;
        else if (outcome === Outcome.PENDING) pending++;
        else pass++;
    }
    if (pass + fail + pending === 0) {
        return Outcome.PASS;
    }
    return decide(pass, fail, pending, strategy);
}

export function decide(pass: number, fail: number, pending: number, strategy: DecisionStrategy): Outcome {
    const best = verdict(pass + pending, fail, strategy);
    const worst = verdict(pass, fail + pending, strategy);
    if (best === worst) {
        return best ? Outcome.PASS : Outcome.FAIL;
    }
    return Outcome.PENDING;
}

function verdict(pass: number, fail: number, strategy: DecisionStrategy): boolean {
    switch (strategy) {
        case 'affirmative':
            return pass > 0;
        case 'consensus':
            // a tie denies
            return pass > fail;
        default:
            return fail === 0;
    }
}
