import { AppError, badRequest, notFound } from '../../errors/app-error.js';
import { ErrorCode, isUuid } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { findRowByKey } from '../../storage/resource/rows.js';
import type { Db } from './context.js';
import type { TableName } from '../../db/schema.js';
import type { TableRow } from '../../storage/resource/table.js';
import type { ResourceSpec } from './spec.js';

/** The realm a name is resolved in: the route mount's, else the caller's (API.md §1). */
function nameRealm(ctx: RequestContext): string | null {
    return ctx.routeRealmId ?? ctx.actor.identity?.realmId ?? null;
}

/**
 * Find a row by id, or by name for named resources. `@`-segments are reserved (spec: never a
 * name or an id). On a realm mount the row must belong to that realm.
 */
export async function findRow<T extends TableName>(
    db: Db,
    spec: ResourceSpec<T>,
    ctx: RequestContext,
    key: string,
    options: { forUpdate?: boolean } = {},
): Promise<TableRow<T> | undefined> {
    if (key.startsWith('@')) throw badRequest(`${key} is not a valid ${spec.entity} id or name.`);
    if (!isUuid(key) && !spec.named) throw new AppError(ErrorCode.ENTITY_NOT_FOUND, `The ${spec.entity} was not found.`);
    // names are stored in Normalization Form C (name-text.ts): a path names a row in any form (UAX #15)
    const rowKey = isUuid(key) ? { id: key.toLowerCase() } : { name: key.normalize('NFC'), realm: nameRealm(ctx) };
    return findRowByKey(db, spec, rowKey, { routeRealmId: ctx.routeRealmId, ...options });
}

export async function getRow<T extends TableName>(db: Db, spec: ResourceSpec<T>, ctx: RequestContext, key: string, options: { forUpdate?: boolean } = {}): Promise<TableRow<T>> {
    const row = await findRow(db, spec, ctx, key, options);
    if (!row) throw notFound(spec.entity);
    return row;
}
