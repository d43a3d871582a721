import { badRequest } from '../errors/app-error.js';
import { findPathPlace } from '../storage/paths.js';
import type { ResourceDefinition } from './resource/context.js';
import { commonFields, type ResourceSpec } from './resource/spec.js';
import { foreignKey, nameField } from './fields.js';

const spec: ResourceSpec = {
    entity: 'path',
    collection: 'paths',
    table: 'auth_paths',
    realm: 'required',
    named: false,
    relations: { realm: { column: 'realm_id', resource: 'realm' }, parent: { column: 'parent_id', resource: 'path' } },
    fields: [],
};
spec.fields = [...commonFields(spec), nameField(128, '^[^/]+$'), foreignKey('parentId', 'parent_id', { create: 'optional', update: true, nullable: true })];

/**
 * Folders (spec: organization only — grants nothing, withholds nothing, not a reach axis).
 * A parent must be a folder of the same realm, and never the folder itself or one of its children.
 */
export const pathsDefinition: ResourceDefinition = {
    spec,
    fields: spec.fields,
    hooks: {
        async prepareCreate(_ctx, input, tx) {
            if (input.parentId) {
                const parent = await findPathPlace(tx, String(input.parentId));
                if (!parent || parent.realm_id !== input.realmId) throw badRequest('parentId must name a folder of the same realm.');
            }
            return {};
        },
        async prepareUpdate(_ctx, row, input, tx) {
            let cursor = typeof input.parentId === 'string' ? input.parentId : null;
            for (let depth = 0; cursor && depth < 64; depth++) {
                if (cursor === row.id) throw badRequest('A folder cannot be moved under itself.');
                const parent = await findPathPlace(tx, cursor);
                if (!parent || parent.realm_id !== row.realm_id) throw badRequest('parentId must name a folder of the same realm.');
                cursor = parent.parent_id;
            }
            return {};
        },
    },
};
