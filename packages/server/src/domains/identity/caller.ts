import { ErrorCode } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError } from '../../errors/app-error.js';
import type { ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { shapeRow } from '../resource/read.js';
import type { EntityRecord, Row } from '../resource/records.js';
import { findRow } from '../resource/resolve.js';

/**
 * The caller's own row for `@me` (API.md §1). A caller of the other identity type has no such
 * row: 404, the answer for any identity that does not exist in a collection. On a realm mount the
 * caller must belong to that realm, like every other row read there.
 */
export async function callerRow(deps: Pick<ResourceDeps, 'db'>, definition: ResourceDefinition, ctx: RequestContext, type: 'user' | 'client'): Promise<Row> {
    const identity = ctx.actor.identity;
    if (!identity || identity.type !== type) {
        throw new AppError(ErrorCode.ENTITY_NOT_FOUND, `The caller is not a ${type}: @me names no ${type}.`);
    }
    // a user bearer's row came with its token's state (authn/bearer.ts): as findRow reads it, on a realm mount that realm's only
    const own = ctx.actor.ownRow;
    if (own && own.id === identity.id && (ctx.routeRealmId === null || own.realm_id === ctx.routeRealmId)) return { ...own } as Row;
    const row = await findRow(deps.db, definition.spec, ctx, identity.id);
    if (!row) throw new AppError(ErrorCode.ENTITY_NOT_FOUND, `The ${type} was not found.`);
    return row;
}

/**
 * `GET /users/@me`, `GET /clients/@me`: the caller's own record. Reading oneself needs no read
 * grant — the caller proved it is this identity, and userinfo/introspection disclose the same
 * identity. Withheld fields follow the usual rule, so `fields=+email` works (the reader is the row).
 */
export async function readCaller(
    deps: Pick<ResourceDeps, 'db'>,
    definition: ResourceDefinition,
    ctx: RequestContext,
    type: 'user' | 'client',
    query: Record<string, unknown>,
): Promise<EntityRecord> {
    return shapeRow(ctx, definition, await callerRow(deps, definition, ctx, type), query);
}
