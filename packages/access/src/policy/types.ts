import type { RealmScope } from '@realmgate/core';
import type { PropertyPath } from '../errors.js';
import type { Lowered } from './condition.js';
import type { PolicyData, PolicyIdentity } from './data.js';
import type { Outcome } from './outcome.js';

/** A policy node as written by an administrator or carried in the catalog (before validation). */
export interface PolicyNodeInput {
    type: string;
    invert?: boolean;
    children?: PolicyNodeInput[];
    [key: string]: unknown;
}

/**
 * The canonical form a type's validator returns (spec: "the output of that type's validator").
 * It holds only the type, `invert` and the type's configuration keys; entity columns are stripped.
 */
export interface CanonicalPolicy {
    type: string;
    invert: boolean;
    children?: CanonicalPolicy[];
    [key: string]: unknown;
}

/** One grant of the definition under evaluation, with its junction policies compiled. */
export interface CompiledGrant {
    realmScope: RealmScope;
    policies: readonly CompiledPolicy[];
}

export interface EvaluationContext {
    /** settled: null means the caller has no identity (anonymous), never "unknown" */
    readonly identity: PolicyIdentity | null;
    readonly data: PolicyData;
    /** the grants of the definition under evaluation; null outside a definition */
    readonly grants: readonly CompiledGrant[] | null;
    /** epoch ms that date (or time) policies are evaluated at: data[DATE]/data[TIME] or the clock */
    now(key: 'date' | 'time'): number;
}

export interface LoweringContext extends EvaluationContext {
    /** the row column grant reach targets; null means `realmId` (spec consumer rule 11) */
    readonly realmAttributeName: string | null;
}

/**
 * A validated policy prepared for repeated evaluation. Both functions return the node's final
 * outcome, invert applied (a neutral pass is returned as PASS without inverting).
 */
export interface CompiledPolicy {
    readonly policy: CanonicalPolicy;
    evaluate(ctx: EvaluationContext): Outcome;
    /** settle without the row where possible; a Condition over row attributes otherwise; null → post */
    lower(ctx: LoweringContext): Lowered;
    /** true when this tree contains a permissionBinding node (refused inside junction policies) */
    readonly containsBinding: boolean;
}

export type ValidateChild = (input: unknown, path: PropertyPath) => CanonicalPolicy;
export type CompileChild = (policy: CanonicalPolicy) => CompiledPolicy;

/** The contract every policy type implements; the registry is an explicit map of them. */
export interface PolicyTypeDefinition<P extends CanonicalPolicy = CanonicalPolicy> {
    readonly type: string;
    /**
     * Return the canonical policy for `input` (a plain object whose `type` is this type) or throw
     * an AccessError with code INVALID_POLICY whose path names the offending key. Unknown keys
     * (entity columns such as id, name, realmId) are dropped, never refused.
     */
    validate(input: Record<string, unknown>, path: PropertyPath, validateChild: ValidateChild): P;
    build(policy: P, compileChild: CompileChild): CompiledPolicy;
    /**
     * The earliest instant strictly after `now` (epoch ms) at which this node's own outcome could
     * change with time alone, or null when it never can. Only date and time types implement it.
     */
    nextChange?(policy: P, now: number): number | null;
}
