import type { PolicyIdentity } from '../policy/data.js';
import { invalidInput } from '../errors.js';
import type { Condition } from '../policy/condition.js';
import { PolicyEvaluationContext } from '../policy/engine.js';
import { combineLowered } from '../policy/lowering.js';
import { isPlainObject } from '../policy/path.js';
import type { CompiledGrant } from '../policy/types.js';
import { readCallerData, readStrategyOption } from './caller-input.js';
import type { GrantsByDefinition } from './grants.js';
import type { ProjectedCatalog } from './projection.js';

export interface AuthorizationCompileContext {
    name: string;
    realmId?: string | null;
    clientId?: string | null;
    /** the row column grant reach targets; default realmId. Naming one leaves row-dependent junction policies to post. */
    realmAttributeName?: string;
    /** date/time instants only: compile never takes realmMatch or attributes */
    data?: Record<string, unknown>;
    options?: { decisionStrategy?: string };
}

/**
 * Spec consumer rule 11. allow: no filter. deny: no rows, total 0. conditional: AND `condition`
 * into both the row query and its count query before offset and limit. post: a policy needs
 * data no row condition can express; the read must be refused (or every candidate evaluated
 * before paging) — never run unrestricted.
 */
export type AuthorizationCompileResult =
    | { type: 'allow' }
    | { type: 'deny' }
    | { type: 'conditional'; condition: Condition }
    | { type: 'post' };

const EMPTY_GRANTS: readonly CompiledGrant[] = Object.freeze([]);
const COMPILE_KEYS = new Set(['name', 'realmId', 'clientId', 'realmAttributeName', 'data', 'options']);

interface CompileState {
    catalog: ProjectedCatalog;
    identity: PolicyIdentity | null;
    grants: GrantsByDefinition;
    clock: () => number;
}

function readNullable(ctx: Record<string, unknown>, key: string): string | null {
    const value = ctx[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') throw invalidInput([key], 'expected a string or null');
    return value;
}

export function compileDefinition(raw: unknown, state: CompileState): AuthorizationCompileResult {
    if (!isPlainObject(raw)) throw invalidInput([], 'expected { name, realmId?, clientId?, realmAttributeName? }');
    for (const key of Object.keys(raw)) {
        if (!COMPILE_KEYS.has(key)) throw invalidInput([key], 'unknown key');
    }
    if (typeof raw.name !== 'string' || raw.name.length === 0) throw invalidInput(['name'], 'expected one permission name');
    const realmAttributeName = raw.realmAttributeName;
    if (realmAttributeName !== undefined && (typeof realmAttributeName !== 'string' || realmAttributeName.length === 0)) {
        throw invalidInput(['realmAttributeName'], 'expected a non-empty attribute name');
    }
    const data = readCallerData(raw.data);
    if (data.realmMatch !== undefined || data.attributes !== undefined || data.attributeNames !== undefined) {
        throw invalidInput(['data'], 'compile takes no realmMatch or attributes: the row decides them');
    }
    const strategy = readStrategyOption(raw.options);

    const definition = state.catalog.find(raw.name, readNullable(raw, 'realmId'), readNullable(raw, 'clientId'));
    if (!definition || definition.policies === null) return { type: 'deny' };
    if (definition.policies.length === 0) return { type: 'allow' };

    const ctx = new PolicyEvaluationContext(
        state.identity,
        data,
        state.grants.get(definition) ?? EMPTY_GRANTS,
        state.clock,
        realmAttributeName ?? null,
    );
    const lowered = combineLowered(
        definition.policies.map((policy) => policy.lower(ctx)),
        strategy ?? definition.decisionStrategy,
    );
    if (lowered === true) return { type: 'allow' };
    if (lowered === false) return { type: 'deny' };
    if (lowered === null) return { type: 'post' };
    return { type: 'conditional', condition: lowered };
}
