import type { FastifyInstance } from 'fastify';
import { contract } from '../contracts/route-contract.js';
import { idParams, ReadQuery, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError } from '../../errors/app-error.js';
import { ErrorCode } from '@realmgate/core';
import type { AnyDb, ResourceDefinition } from '../../domains/resource/context.js';
import { shapeRow } from '../../domains/resource/read.js';
import type { Row } from '../../domains/resource/records.js';
import { findRow } from '../../domains/resource/resolve.js';
import type { RouteDeps } from './resource.js';

/**
 * The caller's own row for `@me` (API.md §1). A caller of the other identity type has no such
 * row: 404, the answer for any identity that does not exist in a collection. On a realm mount the
 * caller must belong to that realm, like every other row read there.
 */
export async function callerRow(deps: RouteDeps, definition: ResourceDefinition, ctx: RequestContext, type: 'user' | 'client'): Promise<Row> {
    const identity = ctx.actor.identity;
    if (!identity || identity.type !== type) {
        throw new AppError(ErrorCode.ENTITY_NOT_FOUND, `The caller is not a ${type}: @me names no ${type}.`);
    }
    const row = await findRow(deps.db as AnyDb, definition.spec, ctx, identity.id);
    if (!row) throw new AppError(ErrorCode.ENTITY_NOT_FOUND, `The ${type} was not found.`);
    return row;
}

/**
 * `GET /users/@me`: the caller's own record. Reading oneself needs no user_read grant — the caller
 * proved it is this user, and userinfo/introspection disclose the same identity. Withheld fields
 * follow the usual rule, so `fields=+email` works (the reader is the row).
 */
export function registerUserRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, prefix: string): void {
    app.get(`${prefix}/${definition.spec.collection}/@me`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'The calling user', ...(prefix ? { params: idParams(prefix, []) } : {}),
        querystring: ReadQuery, response: { 200: singleEnvelope(recordSchema(definition), 'The caller\'s own user record.') },
    }), async (request) => {
        const ctx = request.context;
        const row = await callerRow(deps, definition, ctx, 'user');
        return { data: await shapeRow(ctx, definition, row, request.query as Record<string, unknown>), meta: {} };
    });
}
