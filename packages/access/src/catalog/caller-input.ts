import { isDecisionStrategy, type DecisionStrategy } from '@realmgate/core';
import { AccessErrorCode, invalidInput, type PropertyPath } from '../errors.js';
import type { PolicyData } from '../policy/data.js';
import { validatePolicyData } from '../policy/data.js';
import { isPlainObject } from '../policy/path.js';

/*
 * What a catalog consumer passes with a decision request — its options and its evaluation data —
 * read the same way by the evaluator and by a compiled definition, so both refuse the same input.
 */

const REFUSED_OPTIONS = ['include', 'exclude', 'pending'];

export function readStrategyOption(options: unknown, path: PropertyPath = ['options']): DecisionStrategy | undefined {
    if (options === undefined || options === null) return undefined;
    if (!isPlainObject(options)) throw invalidInput(path, 'expected an object');
    for (const key of Object.keys(options)) {
        if (REFUSED_OPTIONS.includes(key)) {
            throw invalidInput([...path, key], 'is refused: an authorization evaluator never skips or defers policies', AccessErrorCode.OPTION_REFUSED);
        }
        if (key !== 'decisionStrategy') throw invalidInput([...path, key], 'unknown option');
    }
    const strategy = options.decisionStrategy;
    if (strategy === undefined) return undefined;
    if (!isDecisionStrategy(strategy)) throw invalidInput([...path, 'decisionStrategy'], "expected 'unanimous', 'affirmative' or 'consensus'");
    return strategy;
}

/** Evaluation data a consumer passes; the identity always comes from the evaluator itself. */
export function readCallerData(value: unknown): PolicyData {
    const data = validatePolicyData(value);
    if ('identity' in data) {
        throw invalidInput(['data', 'identity'], 'is refused: the evaluator\'s identity is authoritative');
    }
    return data;
}
