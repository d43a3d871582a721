import { isIdentityType, type IdentityType } from '@realmgate/core';
import { Outcome, passIf } from '../outcome.js';
import type { CanonicalPolicy, CompiledPolicy, EvaluationContext, PolicyTypeDefinition } from '../types.js';
import { invalidPolicy, readInvert } from '../validation.js';

export interface IdentityPolicy extends CanonicalPolicy {
    type: 'identity';
    /** the identity types admitted; absent admits every type */
    types?: IdentityType[];
}

/**
 * Passes when the caller has an identity (of one of `types`). Without an identity it fails
 * whatever its invert says: a policy that needs an identity never lets an anonymous caller in
 * (spec consumer rule 6).
 */
export const identityPolicyType: PolicyTypeDefinition<IdentityPolicy> = {
    type: 'identity',
    validate(input, path) {
        const policy: IdentityPolicy = { type: 'identity', invert: readInvert(input, path) };
        if (input.types !== undefined && input.types !== null) {
            if (!Array.isArray(input.types) || input.types.some((type) => !isIdentityType(type))) {
                throw invalidPolicy([...path, 'types'], "expected a list of 'user' and 'client'");
            }
            policy.types = [...new Set(input.types as IdentityType[])];
        }
        return policy;
    },
    build(policy): CompiledPolicy {
        const { invert, types } = policy;
        const evaluate = (ctx: EvaluationContext) => {
            if (!ctx.identity) return Outcome.FAIL;
            return passIf(!types || types.includes(ctx.identity.type), invert);
        };
        return {
            policy,
            containsBinding: false,
            evaluate,
            lower: (ctx) => evaluate(ctx) === Outcome.PASS,
        };
    },
};
