import { ErrorCode } from '@realmgate/core';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, listQuery, ReadQuery, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { FastifyInstance } from 'fastify';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError } from '../../errors/app-error.js';
import type { SessionStore } from '../../tokens/sessions.js';
import { recordEvent } from '../../domains/events.js';
import { authorizeAction } from '../../domains/resource/authorize.js';
import { typed, type AnyDb, type AnyTx, type ResourceDefinition } from '../../domains/resource/context.js';
import { shapeRow } from '../../domains/resource/read.js';
import { recordOf, type EntityRecord, type Row } from '../../domains/resource/records.js';
import { selectRows } from '../../domains/resource/referenced.js';
import { findRow, getRow } from '../../domains/resource/resolve.js';
import type { RouteDeps } from './resource.js';
import { realmOfRow } from '../../domains/resource/spec.js';
import { bulkEnd, type Where } from '../../domains/sessions/bulk.js';
import { toDbDate } from '../../db/values.js';

export interface SessionRouteDeps extends RouteDeps {
    sessions: SessionStore;
}

/** Spec "Client, user and session routes": the flat keys that make DELETE /sessions a force-logout. */
export const SESSION_TARGET_KEYS = ['id', 'sub', 'subKind', 'userId', 'clientId', 'realmId'] as const;
/** The same rule on tokens: keys that name rows rather than narrow the caller's own. */
export const SESSION_TOKEN_TARGET_KEYS = ['id', 'sessionId'] as const;

/**
 * The answer of a bulk end: 200 with how many sessions were revoked (or tokens deleted). A count,
 * not the rows: a realm-wide force-logout may end more sessions than a page holds.
 */
const counted = (count: number) => ({ data: { count }, meta: {} });
const CountAnswer = Type.Object({ data: Type.Object({ count: Type.Integer({ minimum: 0 }) }), meta: Type.Object({}) }, {
    description: 'How many sessions were revoked (or tokens deleted).',
});

/** The caller's sessions except the one the request came through (none for Basic). */
function ownOtherSessions(ctx: RequestContext): Where {
    const identity = ctx.actor.identity!;
    return (eb) => eb.and([
        eb('auth_sessions.sub', '=', identity.id),
        eb('auth_sessions.sub_kind', '=', identity.type),
        ...(ctx.actor.sessionId ? [eb('auth_sessions.id', '!=', ctx.actor.sessionId)] : []),
    ]);
}

/** `@me` names the session of the request's bearer token; Basic carries none. */
function currentSessionKey(ctx: RequestContext, key: string): string {
    if (key !== '@me') return key;
    if (!ctx.actor.sessionId) throw new AppError(ErrorCode.ENTITY_NOT_FOUND, 'The request carries no session: @me names a bearer token\'s session.');
    return ctx.actor.sessionId;
}

const ownsSession = (ctx: RequestContext, row: Row): boolean =>
    ctx.actor.identity !== null && row.sub === ctx.actor.identity.id && row.sub_kind === ctx.actor.identity.type;

/**
 * DELETE /sessions/:id (spec States): sets revoked_at, so every token of the session answers 401
 * on its next request. Its owner may end it (a logout); anyone else needs session_delete reaching
 * the session's realm. Ending an ended session changes nothing and answers the record again.
 */
async function revokeOne(deps: SessionRouteDeps, definition: ResourceDefinition, ctx: RequestContext, key: string): Promise<EntityRecord> {
    const { spec, hooks } = definition;
    // grants and catalog load before the transaction: SQLite has one connection, which the transaction holds
    await ctx.authorizer();
    return (deps.db as AnyDb).transaction().execute(async (tx: AnyTx) => {
        const row = await getRow(tx, spec, ctx, currentSessionKey(ctx, key), { forUpdate: deps.handle.dialect !== 'sqlite' });
        const record = recordOf(definition, row);
        if (!ownsSession(ctx, row)) await authorizeAction(ctx, spec, hooks, 'delete', { realmId: realmOfRow(spec, row), record });
        if (row.revoked_at !== null && row.revoked_at !== undefined) return record;
        await deps.sessions.revoke(typed(tx), row.id as string);
        const stored = recordOf(definition, await selectRows(tx, spec).where('id', '=', row.id).executeTakeFirstOrThrow() as Row);
        await recordEvent(typed(tx), deps.handle.dialect, ctx, {
            name: `${spec.entity}.deleted`, refType: spec.entity, refId: row.id as string, realmId: realmOfRow(spec, row) ?? null, data: stored,
        });
        return stored;
    });
}

export function registerSessionRoutes(app: FastifyInstance, deps: SessionRouteDeps, definition: ResourceDefinition, prefix: string): void {
    const base = `${prefix}/${definition.spec.collection}`;
    const tags = [definition.spec.collection];
    const record = recordSchema(definition);
    const mountParams = prefix ? { params: idParams(prefix, []) } : {};
    // the caller's current session: reading oneself needs no session_read, like GET /users/@me
    app.get(`${base}/@me`, contract({
        auth: 'required', tags, summary: 'The session of the request\'s bearer token', ...mountParams, querystring: ReadQuery,
        response: { 200: singleEnvelope(record, 'The current session.') },
    }), async (request) => {
        const ctx = request.context;
        const row = await findRow(deps.db as AnyDb, definition.spec, ctx, currentSessionKey(ctx, '@me'));
        if (!row) throw new AppError(ErrorCode.ENTITY_NOT_FOUND, 'The session was not found.');
        return { data: await shapeRow(ctx, definition, row, request.query as Record<string, unknown>), meta: {} };
    });
    app.delete<{ Params: { id: string } }>(`${base}/:id`, contract({
        auth: 'required', tags, summary: 'End a session (a logout, or a force-logout with session_delete)', params: idParams(prefix),
        response: { 200: singleEnvelope(record, 'The ended session.') },
    }), async (request) => {
        const ctx = request.context;
        return { data: await revokeOne(deps, definition, ctx, request.params.id), meta: {} };
    });
    app.delete(base, contract({
        auth: 'required', tags, summary: 'End sessions in bulk: the caller\'s other sessions, or those a filter names', ...mountParams,
        querystring: listQuery(definition), response: { 200: CountAnswer },
    }), async (request) => {
        const ctx = request.context;
        const count = await bulkEnd(deps, definition, ctx, request.query as Record<string, unknown>, {
            targetKeys: SESSION_TARGET_KEYS,
            ownRows: ownOtherSessions,
            async apply(tx, where) {
                const now = toDbDate(deps.handle.dialect, new Date());
                const result = await tx.updateTable('auth_sessions').set({ revoked_at: now, updated_at: now })
                    .where(where).where('auth_sessions.revoked_at', 'is', null).executeTakeFirst();
                return Number(result.numUpdatedRows);
            },
        });
        return counted(count);
    });
}

/**
 * DELETE /session-tokens: the filter rules of DELETE /sessions; self-service deletes the tokens of
 * the caller's other sessions. Deleting a refresh token's row revokes it (the refresh grant needs it).
 */
export function registerSessionTokenRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, prefix: string): void {
    app.delete(`${prefix}/${definition.spec.collection}`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'Delete session tokens in bulk, by the filter rules of DELETE /sessions',
        ...(prefix ? { params: idParams(prefix, []) } : {}), querystring: listQuery(definition), response: { 200: CountAnswer },
    }), async (request) => {
        const ctx = request.context;
        const count = await bulkEnd(deps, definition, ctx, request.query as Record<string, unknown>, {
            targetKeys: SESSION_TOKEN_TARGET_KEYS,
            ownRows: (context) => {
                const own = ownOtherSessions(context);
                return (eb) => eb('auth_session_tokens.session_id', 'in', eb.selectFrom('auth_sessions').select('auth_sessions.id').where(own));
            },
            async apply(tx, where) {
                const result = await tx.deleteFrom('auth_session_tokens').where(where).executeTakeFirst();
                return Number(result.numDeletedRows);
            },
        });
        return counted(count);
    });
}
