import { ErrorCode, isUuid } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError, badRequest, notFound } from '../../errors/app-error.js';
import { findRowByKey } from '../../storage/resource/rows.js';
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
export async function upsertEntity(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, pathKey: string, body: Record<string, unknown>): Promise<Upserted> {
    const { spec } = definition;
    const isId = isUuid(pathKey);
    // a name key in Normalization Form C, as the create path stores it (name-text.ts, UAX #15): an
    // NFD spelling of a stored name updates that row, and equals the same name in the body
    const key = isId ? pathKey : pathKey.normalize('NFC');
    const existing = await findRow(deps.db, spec, ctx, key);
    if (existing) {
        return { created: false, data: await updateEntity(deps, definition, ctx, existing.id, body) };
    }
    if (!isId && body.name !== undefined && (typeof body.name !== 'string' || body.name.normalize('NFC') !== key)) {
        throw badRequest('The body name differs from the name in the path.', [{ path: ['name'], code: 'name_mismatch', message: 'must equal the name in the path' }]);
    }
    if (isId && spec.named && body.name === undefined) {
        throw badRequest('A new row needs a name.', [{ path: ['name'], code: 'required', message: "must have required property 'name'" }]);
    }
    const input = isId ? body : { ...body, name: key };
    try {
        return { created: true, data: await createEntity(deps, definition, ctx, input, isId ? key.toLowerCase() : undefined) };
    } catch (error) {
        if (isId && error instanceof AppError && error.code === ErrorCode.ENTITY_CONFLICT && await idTakenElsewhere(deps, definition, key)) {
            // the id names a row outside this realm mount (findRow saw none): answer as GET, POST and
            // DELETE on the same path do, instead of a 409 that tells the caller the id exists in another realm
            throw notFound(spec.entity);
        }
        throw error;
    }
}

/** Whether a row of the table holds the id, in any realm (read after the failed create's transaction ended). */
async function idTakenElsewhere(deps: ResourceDeps, definition: ResourceDefinition, id: string): Promise<boolean> {
    return (await findRowByKey(deps.db, definition.spec, { id: id.toLowerCase() }, { routeRealmId: null })) !== undefined;
}
