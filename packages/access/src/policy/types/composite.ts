import { DecisionStrategy, isDecisionStrategy } from '@realmgate/core';
import { notLowered } from '../condition.js';
import { combineLowered } from '../lowering.js';
import { decide, maybeInvert, Outcome } from '../outcome.js';
import type { CanonicalPolicy, CompiledPolicy, PolicyTypeDefinition } from '../types.js';
import { invalidPolicy, readInvert } from '../validation.js';

export interface CompositePolicy extends CanonicalPolicy {
    type: 'composite';
    decisionStrategy: DecisionStrategy;
    children: CanonicalPolicy[];
}

/**
 * Bundles child policies under a decision strategy. An empty composite passes under every
 * strategy: like an empty definition layer, it restricts nothing.
 */
export const compositePolicyType: PolicyTypeDefinition<CompositePolicy> = {
    type: 'composite',
    validate(input, path, validateChild) {
        const strategy = input.decisionStrategy ?? DecisionStrategy.UNANIMOUS;
        if (!isDecisionStrategy(strategy)) {
            throw invalidPolicy([...path, 'decisionStrategy'], "expected 'unanimous', 'affirmative' or 'consensus'");
        }
        const children = input.children ?? [];
        if (!Array.isArray(children)) {
            throw invalidPolicy([...path, 'children'], 'expected a list of policies');
        }
        return {
            type: 'composite',
            invert: readInvert(input, path),
            decisionStrategy: strategy,
            children: children.map((child, index) => validateChild(child, [...path, 'children', index])),
        };
    },
    build(policy, compileChild): CompiledPolicy {
        const children = policy.children.map(compileChild);
        const { decisionStrategy: strategy, invert } = policy;
        const count = children.length;
        return {
            policy,
            containsBinding: children.some((child) => child.containsBinding),
            evaluate(ctx) {
                if (count === 0) return maybeInvert(Outcome.PASS, invert);
                let pass = 0;
                let fail = 0;
                let pending = 0;
                for (let i = 0; i < count; i++) {
                    const outcome = children[i]!.evaluate(ctx);
                    if (outcome === Outcome.FAIL) {
                        if (strategy === 'unanimous') return maybeInvert(Outcome.FAIL, invert);
                        fail++;
                    } else if (outcome === Outcome.PENDING) {
                        pending++;
                    } else {
                        if (strategy === 'affirmative') return maybeInvert(Outcome.PASS, invert);
                        pass++;
                    }
                }
                return maybeInvert(decide(pass, fail, pending, strategy), invert);
            },
            lower(ctx) {
                const lowered = combineLowered(children.map((child) => child.lower(ctx)), strategy);
                return invert ? notLowered(lowered) : lowered;
            },
        };
    },
};
