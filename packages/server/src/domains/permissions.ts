import { randomUUID } from 'node:crypto';
import { DECISION_STRATEGIES, SystemPolicyName } from '@realmgate/core';
import { toDbDate } from '../db/values.js';
import type { ResourceDefinition } from './resource/context.js';
import { assertClientOfRealm } from './client-owner.js';
import { commonFields, type ResourceSpec } from './resource/spec.js';
import { builtInField, descriptionField, displayNameField, foreignKey, nameField } from './fields.js';
import type { DialectName } from '../db/values.js';
import type { Tx } from './resource/context.js';
import { findRootPolicyId, insertPermissionPolicy } from '../storage/policies.js';

const spec: ResourceSpec = {
    entity: 'permission',
    collection: 'permissions',
    table: 'auth_permissions',
    realm: 'nullable',
    named: true,
    hasBuiltIn: true,
    invalidatesCatalog: true,
    relations: { realm: { column: 'realm_id', resource: 'realm' }, client: { column: 'client_id', resource: 'client' } },
    fields: [],
};
spec.fields = [
    ...commonFields(spec),
    nameField(128, '^[a-zA-Z0-9_.:-]+$'),
    displayNameField,
    descriptionField,
    builtInField,
    { name: 'decisionStrategy', column: 'decision_strategy', type: 'enum', values: DECISION_STRATEGIES, create: 'optional', update: true, default: 'unanimous' },
    foreignKey('clientId', 'client_id', { create: 'optional', nullable: true }),
];

export const permissionSpec = spec;

/** Bind the built-in global `system.default` to a permission (spec model line 3; POST /permissions rule). */
async function bindSystemDefault(tx: Tx, dialect: DialectName, permissionId: string): Promise<void> {
    const policyId = await findRootPolicyId(tx, SystemPolicyName.DEFAULT, null);
    if (!policyId) return;
    await insertPermissionPolicy(tx, { id: randomUUID(), permissionId, policyId, createdAt: toDbDate(dialect, new Date()) });
}

/**
 * `assignDefaultPolicy` is core.permissionsDefaultPolicyAssignment: off, a permission created
 * through the API or a provisioning file gets no system.default binding, so the realm reach of its
 * grants is not checked (spec model rule 5; the boot logs that). Built-in permissions keep theirs
 * (bootstrap binds them itself): the built-in roles' reach must hold whatever the setting.
 */
export function permissionsDefinition(dialect: DialectName, assignDefaultPolicy = true): ResourceDefinition {
    return {
        spec,
        fields: spec.fields,
        hooks: {
            async prepareCreate(_ctx, input, tx) {
                await assertClientOfRealm(tx, input.clientId, input.realmId);
                return {};
            },
            afterCreate: async (_ctx, row, tx) => {
                if (assignDefaultPolicy) await bindSystemDefault(tx, dialect, row.id);
            },
        },
    };
}
