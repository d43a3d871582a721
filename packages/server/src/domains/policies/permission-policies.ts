import { issue, validationFailed } from '../../errors/app-error.js';
import { foreignKey } from '../fields.js';
import type { ResourceDefinition } from '../resource/context.js';
import { commonFields, type ResourceSpec } from '../resource/spec.js';
import { policyRow } from './tree.js';
import { nullableTextOf, textOf } from '../resource/input.js';

const spec: ResourceSpec = {
    entity: 'permission_policy',
    collection: 'permission-policies',
    table: 'auth_permission_policies',
    // decisions are about the permission's realm: a binding changes that definition's decisions
    realm: 'referenced',
    realmReference: { column: 'permission_id', table: 'auth_permissions' },
    named: false,
    invalidatesCatalog: true,
    fields: [],
};
spec.fields = [...commonFields(spec), foreignKey('permissionId', 'permission_id'), foreignKey('policyId', 'policy_id')];
spec.relations = {
    permission: { column: 'permission_id', resource: 'permission' },
    policy: { column: 'policy_id', resource: 'policy' },
};

/**
 * Definition-layer bindings (spec model line 1; "Permission, policy and role routes"): POST
 * accepts only a global policy or one of the permission's own realm (400 otherwise, spec Errors),
 * and only a root, since the catalog carries trees by their root id. DELETE removes a binding.
 */
export const permissionPoliciesDefinition: ResourceDefinition = {
    spec,
    fields: spec.fields,
    hooks: {
        async prepareCreate(_ctx, input, tx) {
            // input.realmId is the permission's realm (the referenced realm the framework resolved)
            const permissionRealm = nullableTextOf(input, 'realmId') ?? null;
            const policy = await policyRow(tx, textOf(input, 'policyId') ?? '');
            const refuse = (message: string) => validationFailed([issue(['policyId'], 'invalid_policy_reference', message)]);
            if (!policy) throw refuse('names no policy');
            if (policy.parent_id) throw refuse('must name a root policy, not the child of a composite');
            if (policy.realm_id !== null && policy.realm_id !== permissionRealm) {
                throw refuse('must name a global policy or one of the permission\'s own realm');
            }
            return {};
        },
    },
};
