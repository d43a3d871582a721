import { sql } from 'kysely';
import { AppError, badRequest, notFound } from '../../errors/app-error.js';
import { ErrorCode, isUuid } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import type { AnyDb } from './context.js';
import type { Row } from './records.js';
import { selectRows } from './referenced.js';
import { hasRealmColumn, type ResourceSpec } from './spec.js';



/** The realm a name is resolved in: the route mount's, else the caller's (API.md §1). */
export function nameRealm(ctx: RequestContext): string | null {
    return ctx.routeRealmId ?? ctx.actor.identity?.realmId ?? null;
}

/**
 * Find a row by id, or by name for named resources. `@`-segments are reserved (spec: never a
 * name or an id). On a realm mount the row must belong to that realm.
 */
export async function findRow(
    db: AnyDb,
    spec: ResourceSpec,
    ctx: RequestContext,
    key: string,
    options: { forUpdate?: boolean } = {},
): Promise<Row | undefined> {
    if (key.startsWith('@')) throw badRequest(`${key} is not a valid ${spec.entity} id or name.`);
    let query = selectRows(db, spec);
    if (isUuid(key)) {
        query = query.where('id', '=', key.toLowerCase());
    } else if (spec.named) {
        const realm = nameRealm(ctx);
        query = query.where('name', '=', key);
        if (hasRealmColumn(spec)) {
            query = realm === null ?
                query.where('realm_id', 'is', null) :
                spec.realm === 'nullable' ?
                    // a name resolves in the realm first, then among global rows
                    query.where((eb) => eb.or([eb('realm_id', '=', realm), eb('realm_id', 'is', null)]))
                        // the realm's own row first on every dialect (NULLs sort first or last depending on it)
                        .orderBy(sql`CASE WHEN realm_id IS NULL THEN 1 ELSE 0 END`) :
                    query.where('realm_id', '=', realm);
        }
    } else {
        throw new AppError(ErrorCode.ENTITY_NOT_FOUND, `The ${spec.entity} was not found.`);
    }
    if (ctx.routeRealmId !== null && hasRealmColumn(spec)) {
        query = query.where('realm_id', '=', ctx.routeRealmId);
    }
    if (options.forUpdate) query = query.forUpdate();
    return (await query.limit(1).executeTakeFirst()) as Row | undefined;
}

export async function getRow(db: AnyDb, spec: ResourceSpec, ctx: RequestContext, key: string, options: { forUpdate?: boolean } = {}): Promise<Row> {
    const row = await findRow(db, spec, ctx, key, options);
    if (!row) throw notFound(spec.entity);
    return row;
}
