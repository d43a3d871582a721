import { isRealmScope, type RealmScope } from '@realmgate/core';
import { andLowered, field, notLowered, orLowered, type Lowered } from '../condition.js';
import { Outcome, passIf } from '../outcome.js';
import { getAttributeValue } from '../path.js';
import { lowerRealmReach, realmScopeReaches } from '../realm-reach.js';
import type { CanonicalPolicy, CompiledPolicy, EvaluationContext, LoweringContext, PolicyTypeDefinition } from '../types.js';
import { invalidPolicy, readInvert, readOptionalBoolean, readOptionalStringList } from '../validation.js';

export interface RealmMatchPolicy extends CanonicalPolicy {
    type: 'realmMatch';
    /** attribute mode: the attributes that must name the caller's realm (id or name) */
    attributeName: string[];
    /** false: also every attribute whose name contains one of attributeName (`parent_realm_id`) */
    attributeNameStrict: boolean;
    /** a null attribute value matches every caller */
    attributeNullMatchAll: boolean;
    /** scope mode: the realm reach the resource realm (data[REALM_MATCH]) must fall within */
    scope?: RealmScope;
}

const DEFAULT_ATTRIBUTE_NAMES = ['realmId'];

function ownValues(ctx: EvaluationContext): (string | null)[] {
    const { realmId, realmName } = ctx.identity!;
    return [...new Set([realmId, realmName].filter((value) => value !== null))];
}

function evaluateScope(policy: RealmMatchPolicy & { scope: RealmScope }, ctx: EvaluationContext): Outcome {
    // spec consumer rule 10: key presence decides; an absent key is a resource without a realm
    // dimension (or a forgotten value) and neutral-passes without invert
    if (ctx.data.realmMatch === undefined) return Outcome.PASS;
    return passIf(realmScopeReaches(policy.scope, ctx.data.realmMatch!, ctx.identity), policy.invert);
}

function matchingKeys(policy: RealmMatchPolicy, attributes: Record<string, unknown>): string[] {
    if (policy.attributeNameStrict) return policy.attributeName;
    const keys = [...policy.attributeName];
    for (const key of Object.keys(attributes)) {
        if (!keys.includes(key) && policy.attributeName.some((name) => key.includes(name))) keys.push(key);
    }
    return keys;
}

function evaluateAttributes(policy: RealmMatchPolicy, ctx: EvaluationContext): Outcome {
    const { attributes } = ctx.data;
    if (attributes === undefined) return Outcome.PENDING;
    const own = ownValues(ctx);
    let evaluated = false;
    let matched = true;
    for (const key of matchingKeys(policy, attributes)) {
        const value = getAttributeValue(attributes, key);
        if (value === undefined) continue;
        evaluated = true;
        const ok = value === null ? policy.attributeNullMatchAll : own.includes(value as string);
        if (!ok) {
            matched = false;
            break;
        }
    }
    // no named attribute on the resource: the policy does not apply (neutral pass, no invert)
    if (!evaluated) return Outcome.PASS;
    return passIf(matched, policy.invert);
}

function lowerAttributes(policy: RealmMatchPolicy, ctx: LoweringContext): Lowered {
    // compile assumes the named attributes are columns of the row; a non-strict name set depends
    // on which keys a row has, which no condition can express
    if (!policy.attributeNameStrict) return null;
    const own = ownValues(ctx) as string[];
    const terms = policy.attributeName.map((name) => orLowered([
        own.length === 0 ? false : (own.length === 1 ? field('eq', name, own[0]!) : field('in', name, own)),
        policy.attributeNullMatchAll ? field('eq', name, null) : false,
    ]));
    const lowered = andLowered(terms);
    return policy.invert ? notLowered(lowered) : lowered;
}

/**
 * Compares the resource's realm with the caller's. Scope mode (`scope` set) applies a realm reach
 * to data[REALM_MATCH]; attribute mode compares named attributes of data[ATTRIBUTES]. Both need
 * an identity and fail without one, whatever invert says.
 */
export const realmMatchPolicyType: PolicyTypeDefinition<RealmMatchPolicy> = {
    type: 'realmMatch',
    validate(input, path) {
        const policy: RealmMatchPolicy = {
            type: 'realmMatch',
            invert: readInvert(input, path),
            attributeName: readOptionalStringList(input, 'attributeName', path) ?? [...DEFAULT_ATTRIBUTE_NAMES],
            attributeNameStrict: readOptionalBoolean(input, 'attributeNameStrict', path) ?? true,
            attributeNullMatchAll: readOptionalBoolean(input, 'attributeNullMatchAll', path) ?? false,
        };
        if (policy.attributeName.length === 0) {
            throw invalidPolicy([...path, 'attributeName'], 'expected at least one attribute name');
        }
        if (input.scope !== undefined && input.scope !== null) {
            if (!isRealmScope(input.scope)) {
                throw invalidPolicy([...path, 'scope'], "expected 'own', 'ownOrNull', 'any' or 'none'");
            }
            policy.scope = input.scope;
        }
        return policy;
    },
    build(policy): CompiledPolicy {
        const scoped = policy.scope !== undefined;
        return {
            policy,
            containsBinding: false,
            evaluate(ctx) {
                if (!ctx.identity) return Outcome.FAIL;
                return scoped ?
                    evaluateScope(policy as RealmMatchPolicy & { scope: RealmScope }, ctx) :
                    evaluateAttributes(policy, ctx);
            },
            lower(ctx) {
                if (!ctx.identity) return false;
                if (!scoped) return lowerAttributes(policy, ctx);
                const lowered = lowerRealmReach(policy.scope!, ctx.realmAttributeName ?? 'realmId', ctx.identity);
                return policy.invert ? notLowered(lowered) : lowered;
            },
        };
    },
};
