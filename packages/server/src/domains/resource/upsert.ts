import { isUuid } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { badRequest } from '../../errors/app-error.js';
import type { ResourceDefinition } from './context.js';
import type { ResourceDeps } from './deps.js';
import type { EntityRecord } from './records.js';
import { findRow } from './resolve.js';
import { createEntity, updateEntity } from './write.js';

export interface Upserted {
    /** true when no row matched the key and one was created (the route answers 201) */
    created: boolean;
    data: EntityRecord;
}

/**
 * `PUT /<collection>/:key` (API.md §1): updates the row the key names, or creates it. On create an
 * id key becomes the new row's id and a name key its name, so a body name must not contradict it.
 */
export async function upsertEntity(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, key: string, body: Record<string, unknown>): Promise<Upserted> {
    const { spec } = definition;
    const existing = await findRow(deps.db, spec, ctx, key);
    if (existing) {
        return { created: false, data: await updateEntity(deps, definition, ctx, existing.id, body) };
    }
    const isId = isUuid(key);
    if (!isId && body.name !== undefined && body.name !== key) {
        throw badRequest('The body name differs from the name in the path.', [{ path: ['name'], code: 'name_mismatch', message: 'must equal the name in the path' }]);
    }
    if (isId && spec.named && body.name === undefined) {
        throw badRequest('A new row needs a name.', [{ path: ['name'], code: 'required', message: "must have required property 'name'" }]);
    }
    const input = isId ? body : { ...body, name: key };
    return { created: true, data: await createEntity(deps, definition, ctx, input, isId ? key.toLowerCase() : undefined) };
}
