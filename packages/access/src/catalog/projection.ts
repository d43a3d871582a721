import { isDecisionStrategy, type DecisionStrategy } from '@realmgate/core';
import { AccessErrorCode, invalidInput, type AccessError, type PropertyPath } from '../errors.js';
import { isPlainObject } from '../policy/path.js';
import { defaultPolicyEngine } from '../policy/registry.js';
import type { CompiledPolicy } from '../policy/types.js';

/** A definition entry prepared for evaluation. */
export interface CompiledDefinition {
    readonly name: string;
    readonly realmId: string | null;
    readonly clientId: string | null;
    readonly decisionStrategy: DecisionStrategy;
    /** null: the definition denies (withheld by the server, or a tree this copy cannot project) */
    readonly policies: readonly CompiledPolicy[] | null;
}

export interface ProjectedCatalog {
    /** compiled trees by id; null marks a tree this library copy cannot project (spec catalog rule 4) */
    readonly trees: ReadonlyMap<string, CompiledPolicy | null>;
    readonly size: number;
    find(name: string, realmId: string | null, clientId: string | null): CompiledDefinition | undefined;
    /** every definition, in catalog order */
    readonly definitions: readonly CompiledDefinition[];
}

function invalidCatalog(path: PropertyPath, expectation: string): AccessError {
    return invalidInput(['catalog', ...path], expectation, AccessErrorCode.INVALID_CATALOG);
}

function readNullableString(entry: Record<string, unknown>, key: string, path: PropertyPath): string | null {
    const value = entry[key];
    if (value === undefined) throw invalidCatalog([...path, key], 'is required (null when not applicable)');
    if (value !== null && typeof value !== 'string') throw invalidCatalog([...path, key], 'expected a string or null');
    return value;
}

function compileTree(node: unknown): CompiledPolicy | null {
    try {
        return defaultPolicyEngine.compile(node);
    } catch {
        // a newer policy type, a configuration this copy's validator refuses, or a withheld node
        return null;
    }
}

function projectDefinition(
    raw: unknown,
    path: PropertyPath,
    trees: Map<string, CompiledPolicy | null>,
): CompiledDefinition {
    if (!isPlainObject(raw)) throw invalidCatalog(path, 'expected a definition entry');
    const { name, decision_strategy: strategy, policies } = raw;
    if (typeof name !== 'string' || name.length === 0) throw invalidCatalog([...path, 'name'], 'expected a non-empty string');
    const realmId = readNullableString(raw, 'realm_id', path);
    const clientId = readNullableString(raw, 'client_id', path);
    if (!isDecisionStrategy(strategy)) {
        throw invalidCatalog([...path, 'decision_strategy'], "expected 'unanimous', 'affirmative' or 'consensus'");
    }
    if (policies === undefined) throw invalidCatalog([...path, 'policies'], 'is required (null when not projectable)');
    let compiled: CompiledPolicy[] | null = null;
    if (policies !== null) {
        if (!Array.isArray(policies)) throw invalidCatalog([...path, 'policies'], 'expected a list of policy ids or null');
        compiled = [];
        for (let i = 0; i < policies.length; i++) {
            const id: unknown = policies[i];
            if (typeof id !== 'string' || !trees.has(id)) {
                throw invalidCatalog([...path, 'policies', i], `references undeclared policy ${JSON.stringify(id)}`);
            }
            const tree = trees.get(id)!;
            if (tree === null) {
                // spec catalog rule 4: only this definition denies; others are unaffected
                compiled = null;
                break;
            }
            compiled.push(tree);
        }
    }
    return { name, realmId, clientId, decisionStrategy: strategy, policies: compiled };
}

function keyOf(realmId: string | null, clientId: string | null): string {
    return `${realmId ?? '\u0000'}\u0001${clientId ?? '\u0000'}`;
}

function project(catalog: unknown): ProjectedCatalog {
    if (!isPlainObject(catalog)) throw invalidCatalog([], 'expected the GET /authorization object { policies, permissions }');
    if (!isPlainObject(catalog.policies)) throw invalidCatalog(['policies'], 'expected a map of policy trees by id');
    if (!Array.isArray(catalog.permissions)) throw invalidCatalog(['permissions'], 'expected a list of definition entries');

    const trees = new Map<string, CompiledPolicy | null>();
    for (const id of Object.keys(catalog.policies)) {
        trees.set(id, compileTree(catalog.policies[id]));
    }

    const byName = new Map<string, Map<string, CompiledDefinition>>();
    const definitions: CompiledDefinition[] = [];
    catalog.permissions.forEach((raw: unknown, index: number) => {
        const definition = projectDefinition(raw, ['permissions', index], trees);
        let scoped = byName.get(definition.name);
        if (!scoped) {
            scoped = new Map();
            byName.set(definition.name, scoped);
        }
        const key = keyOf(definition.realmId, definition.clientId);
        if (scoped.has(key)) {
            throw invalidCatalog(['permissions', index], `duplicate permission namespace (${definition.name}, realm ${definition.realmId}, client ${definition.clientId})`);
        }
        scoped.set(key, definition);
        definitions.push(definition);
    });

    return {
        trees,
        size: definitions.length,
        definitions,
        find: (name, realmId, clientId) => byName.get(name)?.get(keyOf(realmId, clientId)),
    };
}

/**
 * Projection is pure and a consumer caches one catalog object per credential (spec consumer rule
 * 14), so it is computed once per catalog object. A catalog is treated as immutable once passed
 * in; mutate a copy, never the object an evaluator was built from.
 */
const projections = new WeakMap<object, { value?: ProjectedCatalog; error?: unknown }>();

export function projectCatalog(catalog: unknown): ProjectedCatalog {
    if (typeof catalog !== 'object' || catalog === null) {
        return project(catalog);
    }
    let entry = projections.get(catalog);
    if (!entry) {
        try {
            entry = { value: project(catalog) };
        } catch (error) {
            entry = { error };
        }
        projections.set(catalog, entry);
    }
    if (entry.error !== undefined) throw entry.error;
    return entry.value!;
}
