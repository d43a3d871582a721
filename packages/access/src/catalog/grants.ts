import { isRealmScope, RealmScope } from '@realmgate/core';
import { AccessErrorCode, AuthorizationCatalogStaleError, invalidInput, type PropertyPath } from '../errors.js';
import { isPlainObject } from '../policy/path.js';
import type { CompiledGrant, CompiledPolicy } from '../policy/types.js';
import type { CompiledDefinition, ProjectedCatalog } from './projection.js';

export type GrantsByDefinition = Map<CompiledDefinition, CompiledGrant[]>;

function invalidGrant(path: PropertyPath, expectation: string) {
    return invalidInput(['grants', ...path], expectation, AccessErrorCode.INVALID_GRANTS);
}

function readNullable(grant: Record<string, unknown>, key: string, path: PropertyPath): string | null {
    const value = grant[key];
    if (value === undefined) throw invalidGrant([...path, key], 'is required (null when not applicable)');
    if (value !== null && typeof value !== 'string') throw invalidGrant([...path, key], 'expected a string or null');
    return value;
}

/**
 * Attach introspected grants to the catalog's definitions (spec consumer rules 4 and 5):
 * a definition or policy the copy lacks is stale; a definition carried with policies null, a
 * junction tree this copy cannot project, or one containing a permission-binding check drops the
 * grant, which then simply denies.
 */
export function bindGrants(catalog: ProjectedCatalog, grants: readonly unknown[]): GrantsByDefinition {
    const bound: GrantsByDefinition = new Map();
    for (let index = 0; index < grants.length; index++) {
        const raw = grants[index];
        const path = [index];
        if (!isPlainObject(raw)) throw invalidGrant(path, 'expected a grant { name, realm_id, client_id, realm_scope, policies }');
        const { name, realm_scope: scope, policies } = raw;
        if (typeof name !== 'string' || name.length === 0) throw invalidGrant([...path, 'name'], 'expected a non-empty string');
        const realmId = readNullable(raw, 'realm_id', path);
        const clientId = readNullable(raw, 'client_id', path);
        if (scope !== undefined && !isRealmScope(scope)) {
            throw invalidGrant([...path, 'realm_scope'], "expected 'own', 'ownOrNull', 'any' or 'none'");
        }
        if (!Array.isArray(policies) || policies.some((id) => typeof id !== 'string')) {
            throw invalidGrant([...path, 'policies'], 'expected a list of policy ids ([] for none)');
        }

        const definition = catalog.find(name, realmId, clientId);
        if (!definition) {
            throw new AuthorizationCatalogStaleError(
                `grants[${index}]: the catalog copy lacks the definition (${name}, realm ${realmId}, client ${clientId}); refetch the catalog`,
                ['grants', index],
            );
        }
        const junction: CompiledPolicy[] = [];
        let usable = definition.policies !== null;
        for (const id of policies as string[]) {
            if (!catalog.trees.has(id)) {
                throw new AuthorizationCatalogStaleError(
                    `grants[${index}]: the catalog copy lacks policy ${id}; refetch the catalog`,
                    ['grants', index, 'policies'],
                );
            }
            const tree = catalog.trees.get(id)!;
            if (tree === null || tree.containsBinding) usable = false;
            else junction.push(tree);
        }
        if (!usable) continue;

        let list = bound.get(definition);
        if (!list) {
            list = [];
            bound.set(definition, list);
        }
        list.push({ realmScope: (scope as RealmScope | undefined) ?? RealmScope.OWN, policies: junction });
    }
    return bound;
}
