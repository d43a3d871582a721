import type { DecisionStrategy } from '@realmgate/core';
import { AccessErrorCode, PermissionDeniedError, invalidInput } from '../errors.js';
import type { PolicyData, PolicyIdentity } from '../policy/data.js';
import { validateIdentity } from '../policy/data.js';
import { PolicyEvaluationContext } from '../policy/engine.js';
import { Outcome, decide } from '../policy/outcome.js';
import { isPlainObject } from '../policy/path.js';
import type { CompiledGrant } from '../policy/types.js';
import { readCallerData, readStrategyOption } from './caller-input.js';
import { compileDefinition, type AuthorizationCompileContext, type AuthorizationCompileResult } from './compile.js';
import { bindGrants, type GrantsByDefinition } from './grants.js';
import { projectCatalog, type CompiledDefinition, type ProjectedCatalog } from './projection.js';

export interface AuthorizationEvaluatorInput {
    /** the catalog the consumer's own credential fetched (GET /authorization) */
    catalog: unknown;
    /** the grants of a fresh introspection of an active token; [] when there are none */
    grants?: readonly unknown[] | null;
    /** the token's subject, or null/absent for an anonymous caller */
    identity?: PolicyIdentity | null;
    /** epoch ms for date and time policies; defaults to Date.now */
    clock?: () => number;
}

export interface AuthorizationEvaluateOptions {
    /** overrides the definition's decision_strategy (spec consumer rule 9) */
    decisionStrategy?: DecisionStrategy;
}

export interface AuthorizationEvaluateContext {
    /** one permission name or a list */
    name: string | readonly string[];
    /** the realm of the permission definition, not of the resource; null/absent = a global definition */
    realmId?: string | null;
    /** the client owning the permission definition; null/absent = not client-owned */
    clientId?: string | null;
    data?: PolicyData;
    options?: AuthorizationEvaluateOptions;
}

export interface AuthorizationEvaluator {
    readonly identity: PolicyIdentity | null;
    /** resolves when every name is allowed; throws a permission_denied error otherwise */
    evaluate(ctx: AuthorizationEvaluateContext): Promise<void>;
    /** resolves when at least one name is allowed */
    evaluateOneOf(ctx: AuthorizationEvaluateContext): Promise<void>;
    /** pre-gate before the row is loaded: pending policies pass (spec consumer rule 8) */
    preEvaluate(ctx: AuthorizationEvaluateContext): Promise<void>;
    preEvaluateOneOf(ctx: AuthorizationEvaluateContext): Promise<void>;
    /** the synchronous verdict of evaluate (every name) without throwing */
    allows(ctx: AuthorizationEvaluateContext): boolean;
    /** the synchronous verdict of preEvaluate (every name): a pending policy passes */
    preAllows(ctx: AuthorizationEvaluateContext): boolean;
    /** the verdict for a collection read (spec consumer rule 11) */
    compile(ctx: AuthorizationCompileContext): AuthorizationCompileResult;
}

const EMPTY_GRANTS: readonly CompiledGrant[] = Object.freeze([]);
const CONTEXT_KEYS = new Set(['name', 'realmId', 'clientId', 'data', 'options']);

function readNames(value: unknown): readonly string[] {
    if (typeof value === 'string' && value.length > 0) return [value];
    if (Array.isArray(value) && value.length > 0 && value.every((name) => typeof name === 'string' && name.length > 0)) {
        return value as string[];
    }
    throw invalidInput(['name'], 'expected a permission name or a non-empty list of names');
}

function readOptionalNullable(ctx: Record<string, unknown>, key: string): string | null {
    const value = ctx[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') throw invalidInput([key], 'expected a string or null');
    return value;
}

function validateInput(input: unknown): { catalog: ProjectedCatalog; identity: PolicyIdentity | null; grants: GrantsByDefinition; clock: () => number } {
    if (!isPlainObject(input)) throw invalidInput([], 'expected { catalog, grants, identity }');
    if (input.catalog === undefined) throw invalidInput(['catalog'], 'is required', AccessErrorCode.INVALID_CATALOG);
    const catalog = projectCatalog(input.catalog);
    const clock = input.clock ?? Date.now;
    if (typeof clock !== 'function') throw invalidInput(['clock'], 'expected a function returning epoch milliseconds');

    const hasIdentity = input.identity !== undefined && input.identity !== null;
    const hasGrants = input.grants !== undefined && input.grants !== null;
    if (!hasIdentity) {
        // spec consumer rule 6: an anonymous caller has neither identity nor grants
        if (hasGrants) throw invalidInput(['grants'], 'grants were supplied without an identity', AccessErrorCode.INVALID_GRANTS);
        return { catalog, identity: null, grants: new Map(), clock: clock as () => number };
    }
    const identity = readEvaluatorIdentity(input.identity);
    if (!hasGrants) {
        throw invalidInput(['grants'], 'an identity needs its grant list (pass [] explicitly when it holds none)', AccessErrorCode.INVALID_GRANTS);
    }
    if (!Array.isArray(input.grants)) throw invalidInput(['grants'], 'expected a list of grants', AccessErrorCode.INVALID_GRANTS);
    return { catalog, identity, grants: bindGrants(catalog, input.grants), clock: clock as () => number };
}

/** Spec consumer rule 1: clientId is the subject id for a client, otherwise null. */
function readEvaluatorIdentity(value: unknown): PolicyIdentity {
    let identity: PolicyIdentity;
    try {
        identity = validateIdentity(value, ['identity']);
    } catch (error) {
        throw Object.assign(error as object, { code: AccessErrorCode.INVALID_IDENTITY });
    }
    if (identity.type === 'client' && identity.clientId !== identity.id) {
        throw invalidInput(['identity', 'clientId'], 'must equal the identity id for a client', AccessErrorCode.INVALID_IDENTITY);
    }
    if (identity.type === 'user' && identity.clientId !== null) {
        throw invalidInput(['identity', 'clientId'], 'must be null for a user', AccessErrorCode.INVALID_IDENTITY);
    }
    return identity;
}

/**
 * Build a per-subject, per-token evaluator from { catalog, grants, identity } (spec consumer
 * rules 1–14). The catalog projection is cached per catalog object, so building from a cached
 * catalog costs O(grants).
 */
export function createAuthorizationEvaluator(input: AuthorizationEvaluatorInput): AuthorizationEvaluator {
    const { catalog, identity, grants, clock } = validateInput(input);

    const decideDefinition = (
        definition: CompiledDefinition | undefined,
        data: PolicyData,
        strategy: DecisionStrategy | undefined,
        pre: boolean,
    ): boolean => {
        // an absent definition only means the copy is older than the server: deny (catalog rule 2)
        if (!definition || definition.policies === null) return false;
        const { policies } = definition;
        if (policies.length === 0) return true;
        const ctx = new PolicyEvaluationContext(identity, data, grants.get(definition) ?? EMPTY_GRANTS, clock);
        let outcome: Outcome;
        if (policies.length === 1) {
            outcome = policies[0]!.evaluate(ctx);
        } else {
            let pass = 0;
            let fail = 0;
            let pending = 0;
            for (const policy of policies) {
                const result = policy.evaluate(ctx);
                if (result === Outcome.FAIL) fail++;
                else if (result === Outcome.PENDING) pending++;
                else pass++;
            }
            outcome = decide(pass, fail, pending, strategy ?? definition.decisionStrategy);
        }
        if (outcome === Outcome.PENDING) return pre;
        return outcome === Outcome.PASS;
    };

    const run = (raw: AuthorizationEvaluateContext, every: boolean, pre: boolean): { allowed: boolean; names: readonly string[] } => {
        if (!isPlainObject(raw)) throw invalidInput([], 'expected { name, realmId?, clientId?, data?, options? }');
        for (const key of Object.keys(raw)) {
            if (!CONTEXT_KEYS.has(key)) throw invalidInput([key], 'unknown key');
        }
        const names = readNames(raw.name);
        const realmId = readOptionalNullable(raw, 'realmId');
        const clientId = readOptionalNullable(raw, 'clientId');
        const data = readCallerData(raw.data);
        const strategy = readStrategyOption(raw.options);
        for (const name of names) {
            const allowed = decideDefinition(catalog.find(name, realmId, clientId), data, strategy, pre);
            if (allowed !== every) return { allowed, names };
        }
        return { allowed: every, names };
    };

    const settle = (ctx: AuthorizationEvaluateContext, every: boolean, pre: boolean): Promise<void> => {
        try {
            const { allowed, names } = run(ctx, every, pre);
            return allowed ? Promise.resolve() : Promise.reject(new PermissionDeniedError(names));
        } catch (error) {
            return Promise.reject(error);
        }
    };

    return {
        identity,
        evaluate: (ctx) => settle(ctx, true, false),
        evaluateOneOf: (ctx) => settle(ctx, false, false),
        preEvaluate: (ctx) => settle(ctx, true, true),
        preEvaluateOneOf: (ctx) => settle(ctx, false, true),
        allows: (ctx) => run(ctx, true, false).allowed,
        preAllows: (ctx) => run(ctx, true, true).allowed,
        compile: (ctx) => compileDefinition(ctx, { catalog, identity, grants, clock }),
    };
}
