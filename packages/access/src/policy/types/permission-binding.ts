import { andLowered, notLowered, orLowered, type Lowered } from '../condition.js';
import { Outcome, passIf } from '../outcome.js';
import { lowerRealmReach, realmScopeReaches } from '../realm-reach.js';
import type { CanonicalPolicy, CompiledGrant, CompiledPolicy, EvaluationContext, LoweringContext, PolicyTypeDefinition } from '../types.js';
import { readInvert } from '../validation.js';

export interface PermissionBindingPolicy extends CanonicalPolicy {
    type: 'permissionBinding';
}

/** A grant's junction policies must all pass (unanimous); none means no junction restriction. */
function evaluateJunction(grant: CompiledGrant, ctx: EvaluationContext): Outcome {
    let pending = false;
    for (const policy of grant.policies) {
        const outcome = policy.evaluate(ctx);
        if (outcome === Outcome.FAIL) return Outcome.FAIL;
        if (outcome === Outcome.PENDING) pending = true;
    }
    return pending ? Outcome.PENDING : Outcome.PASS;
}

/**
 * Holds when the caller has a grant of the definition under evaluation whose reach admits the
 * resource realm AND whose junction policies pass — each grant's reach paired with its own
 * policies, so an `own` grant's passing policy never rides an `any` grant's reach.
 * Without data[REALM_MATCH] reach neutral-passes (spec consumer rule 10).
 */
function evaluateBinding(ctx: EvaluationContext): Outcome {
    const { grants, identity, data } = ctx;
    if (!identity || !grants) return Outcome.FAIL;
    const hasRealm = data.realmMatch !== undefined;
    let pending = false;
    for (let i = 0; i < grants.length; i++) {
        const grant = grants[i]!;
        if (hasRealm && !realmScopeReaches(grant.realmScope, data.realmMatch!, identity)) continue;
        const outcome = grant.policies.length === 0 ? Outcome.PASS : evaluateJunction(grant, ctx);
        if (outcome === Outcome.PASS) return Outcome.PASS;
        if (outcome === Outcome.PENDING) pending = true;
    }
    return pending ? Outcome.PENDING : Outcome.FAIL;
}

/**
 * The disjunction over grants of (reach over the realm column ∧ junction policies). When the
 * caller names its own realm column (realmAttributeName), a junction policy that depends on the
 * row is left to post: it was written against the entity's attributes, which that row may not have.
 */
function lowerBinding(ctx: LoweringContext): Lowered {
    const { grants, identity } = ctx;
    if (!identity || !grants) return false;
    const column = ctx.realmAttributeName ?? 'realmId';
    const terms: Lowered[] = [];
    for (const grant of grants) {
        const reach = lowerRealmReach(grant.realmScope, column, identity);
        if (reach === false) continue;
        let junction = andLowered(grant.policies.map((policy) => policy.lower(ctx)));
        if (ctx.realmAttributeName !== null && junction !== true && junction !== false) junction = null;
        terms.push(andLowered([reach, junction]));
    }
    return orLowered(terms);
}

export const permissionBindingPolicyType: PolicyTypeDefinition<PermissionBindingPolicy> = {
    type: 'permissionBinding',
    validate(input, path) {
        return { type: 'permissionBinding', invert: readInvert(input, path) };
    },
    build(policy): CompiledPolicy {
        const { invert } = policy;
        return {
            policy,
            containsBinding: true,
            evaluate(ctx) {
                const outcome = evaluateBinding(ctx);
                if (outcome === Outcome.PENDING) return outcome;
                // an anonymous caller (or one outside a definition) holds no grant; inverting must not let it in
                if (!ctx.identity || !ctx.grants) return Outcome.FAIL;
                return passIf(outcome === Outcome.PASS, invert);
            },
            lower(ctx) {
                if (!ctx.identity || !ctx.grants) return false;
                const lowered = lowerBinding(ctx);
                return invert ? notLowered(lowered) : lowered;
            },
        };
    },
};
