import { AccessErrorCode, invalidInput, type AccessError, type PropertyPath } from '../errors.js';
import { WITHHELD_POLICY_TYPE } from './constants.js';
import type { PolicyData, PolicyIdentity } from './data.js';
import { toInstant, validateIdentity, validatePolicyData } from './data.js';
import { Outcome } from './outcome.js';
import { isPlainObject } from './path.js';
import type {
    CanonicalPolicy,
    CompiledGrant,
    CompiledPolicy,
    LoweringContext,
    PolicyTypeDefinition,
} from './types.js';
import { invalidPolicy } from './validation.js';

/** Deepest policy tree accepted; a cycle or a hostile document cannot exhaust the stack. */
const MAX_DEPTH = 32;

export type PolicyOutcomeName = 'pass' | 'fail' | 'pending';

export interface PolicyEvaluateOptions {
    identity?: PolicyIdentity | null;
    /** pre-evaluation: a pending policy passes (spec consumer rule 8) */
    pre?: boolean;
    /** the clock, epoch ms; defaults to Date.now */
    clock?: () => number;
}

export interface PolicyEngine {
    /** the registered type names */
    readonly types: readonly string[];
    /** canonical form of a tree or an AccessError (code access_invalid_policy) naming the field */
    validate(input: unknown, path?: PropertyPath): CanonicalPolicy;
    /** validate then prepare for repeated evaluation */
    compile(input: unknown): CompiledPolicy;
    /**
     * pass / fail / pending; pending only when `pre` is off (pre maps pending to pass). A tree
     * holding a type this engine does not know fails; a known type's malformed configuration throws.
     */
    evaluate(input: unknown, data?: PolicyData, options?: PolicyEvaluateOptions): PolicyOutcomeName;
    /** the earliest instant after `now` at which a date or time node of the tree could change its outcome */
    nextChange(input: unknown, now: number): number | null;
}

/** A context over one evaluation; the clock is read at most once per key. */
export class PolicyEvaluationContext implements LoweringContext {
    private dateNow: number | undefined;

    private timeNow: number | undefined;

    constructor(
        readonly identity: PolicyIdentity | null,
        readonly data: PolicyData,
        readonly grants: readonly CompiledGrant[] | null,
        private readonly clock: () => number,
        readonly realmAttributeName: string | null = null,
    ) {}

    now(key: 'date' | 'time'): number {
        if (key === 'date') {
            if (this.dateNow === undefined) {
                this.dateNow = this.data.date === undefined ? this.clock() : toInstant(this.data.date, ['data', 'date']);
            }
            return this.dateNow;
        }
        if (this.timeNow === undefined) {
            this.timeNow = this.data.time === undefined ? this.clock() : toInstant(this.data.time, ['data', 'time']);
        }
        return this.timeNow;
    }
}

export function createPolicyEngine(definitions: readonly PolicyTypeDefinition[]): PolicyEngine {
    const registry = new Map<string, PolicyTypeDefinition>();
    for (const definition of definitions) {
        if (registry.has(definition.type)) {
            throw invalidInput(['types', definition.type], 'is registered twice');
        }
        registry.set(definition.type, definition);
    }

    const validateAt = (input: unknown, path: PropertyPath, depth: number): CanonicalPolicy => {
        if (depth > MAX_DEPTH) {
            throw invalidPolicy(path, `policy tree deeper than ${MAX_DEPTH} levels`);
        }
        if (!isPlainObject(input)) {
            throw invalidPolicy(path, 'expected a policy object with a type');
        }
        const { type } = input;
        if (typeof type !== 'string') {
            throw invalidPolicy([...path, 'type'], 'expected a policy type name');
        }
        const definition = registry.get(type);
        if (!definition || type === WITHHELD_POLICY_TYPE) {
            throw invalidInput([...path, 'type'], `unknown policy type '${type}'`, AccessErrorCode.UNKNOWN_POLICY_TYPE);
        }
        return definition.validate(input, path, (child, childPath) => validateAt(child, childPath, depth + 1));
    };

    const build = (policy: CanonicalPolicy): CompiledPolicy => {
        const definition = registry.get(policy.type);
        if (!definition) {
            throw invalidPolicy(['type'], `unknown policy type '${policy.type}'`);
        }
        return definition.build(policy, build);
    };

    const nextChangeOf = (policy: CanonicalPolicy, now: number): number | null => {
        let earliest: number | null = registry.get(policy.type)?.nextChange?.(policy, now) ?? null;
        for (const child of policy.children ?? []) {
            const next = nextChangeOf(child, now);
            if (next !== null && (earliest === null || next < earliest)) earliest = next;
        }
        return earliest;
    };

    const engine: PolicyEngine = {
        types: Object.freeze([...registry.keys()]),
        validate: (input, path = []) => validateAt(input, path, 0),
        compile: (input) => build(validateAt(input, [], 0)),
        evaluate(input, data, options = {}) {
            if (!isPlainObject(options)) throw invalidInput(['options'], 'expected an object');
            const clock = options.clock ?? Date.now;
            if (typeof clock !== 'function') throw invalidInput(['options', 'clock'], 'expected a function returning epoch milliseconds');
            const identity = options.identity === undefined || options.identity === null ?
                null :
                validateIdentity(options.identity, ['options', 'identity']);
            let compiled: CompiledPolicy;
            try {
                compiled = engine.compile(input);
            } catch (error) {
                if (isUnknownPolicyTypeError(error)) return 'fail';
                throw error;
            }
            const ctx = new PolicyEvaluationContext(identity, validatePolicyData(data), null, clock as () => number);
            const outcome = compiled.evaluate(ctx);
            if (outcome === Outcome.PENDING) return options.pre ? 'pass' : 'pending';
            return outcome === Outcome.PASS ? 'pass' : 'fail';
        },
        nextChange(input, now) {
            if (typeof now !== 'number' || !Number.isFinite(now)) throw invalidInput(['now'], 'expected epoch milliseconds');
            return nextChangeOf(validateAt(input, [], 0), now);
        },
    };
    return engine;
}

function codeOf(error: unknown): unknown {
    return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

/** A policy refused by validation: a malformed configuration or an unknown type. */
export function isPolicyValidationError(error: unknown): error is AccessError {
    const code = codeOf(error);
    return code === AccessErrorCode.INVALID_POLICY || code === AccessErrorCode.UNKNOWN_POLICY_TYPE;
}

export function isUnknownPolicyTypeError(error: unknown): error is AccessError {
    return codeOf(error) === AccessErrorCode.UNKNOWN_POLICY_TYPE;
}
