import type { DecisionStrategy } from '@realmgate/core';
import { invalidInput } from '../errors.js';
import { BuiltInPolicyType } from '../policy/constants.js';
import type { PolicyEngine } from '../policy/engine.js';
import { combineOutcomes, maybeInvert, Outcome } from '../policy/outcome.js';
import { defaultPolicyEngine } from '../policy/registry.js';
import type { CanonicalPolicy } from '../policy/types.js';

/** Types whose evaluate fails without an identity, whatever their invert says. */
const IDENTITY_TYPES = new Set<string>([
    BuiltInPolicyType.IDENTITY,
    BuiltInPolicyType.PERMISSION_BINDING,
    BuiltInPolicyType.REALM_MATCH,
]);

/*
 * Both helpers read a tree abstractly with the engine's own three-valued combination: a node
 * whose outcome depends on the caller, the data or the clock is PENDING ("could go either way"),
 * and decide() keeps a result settled only when every resolution of the pending nodes agrees.
 */

function grantlessOutcome(policy: CanonicalPolicy): Outcome {
    if (policy.type === BuiltInPolicyType.PERMISSION_BINDING) {
        // no grant: fails; inverted it passes for an identified caller, fails for an anonymous one
        return policy.invert ? Outcome.PENDING : Outcome.FAIL;
    }
    if (policy.type === BuiltInPolicyType.COMPOSITE) {
        const children = policy.children ?? [];
        if (children.length === 0) return maybeInvert(Outcome.PASS, policy.invert);
        return maybeInvert(combineOutcomes(children.map(grantlessOutcome), policy.decisionStrategy as DecisionStrategy), policy.invert);
    }
    return Outcome.PENDING;
}

/**
 * Whether a definition layer (its policy trees under its decision strategy) denies every caller
 * that holds no grant of it — at every instant, for every identity and every data. The batch check
 * uses it so the date or time window of a permission the caller cannot hold never reaches its
 * max-age (spec batch-check rule 8). An empty layer restricts nothing and so never denies.
 */
export function deniesWithoutGrant(
    policies: readonly unknown[],
    strategy: DecisionStrategy,
    engine: PolicyEngine = defaultPolicyEngine,
): boolean {
    if (!Array.isArray(policies)) throw invalidInput(['policies'], 'expected a list of policy trees');
    if (policies.length === 0) return false;
    const outcomes = policies.map((input, index) => grantlessOutcome(engine.validate(input, ['policies', index])));
    const outcome = outcomes.length === 1 ? outcomes[0]! : combineOutcomes(outcomes, strategy);
    return outcome === Outcome.FAIL;
}

/**
 * Whether a tree contains a node that fails without an identity (identity, permission binding,
 * realm match): evaluated for no identity, such a tree's denial says "an identity is needed", not
 * "denied" (spec: a permission check that needs an unavailable identity answers status 'error').
 */
export function policyNeedsIdentity(policy: unknown, engine: PolicyEngine = defaultPolicyEngine): boolean {
    const visit = (node: CanonicalPolicy): boolean =>
        IDENTITY_TYPES.has(node.type) || (node.children ?? []).some(visit);
    return visit(engine.validate(policy));
}
