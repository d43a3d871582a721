import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, listQuery, ReadQuery, readSchema, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { SessionStore } from '../../tokens/sessions.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import type { RouteDeps } from './resource.js';
import { readCurrentSession, revokeSession } from '../../domains/sessions/revoke.js';
import { endSessions, endSessionTokens } from '../../domains/sessions/end.js';

export interface SessionRouteDeps extends RouteDeps {
    sessions: SessionStore;
}

/**
 * The answer of a bulk end: 200 with how many sessions were revoked (or tokens deleted). A count,
 * not the rows: a realm-wide force-logout may end more sessions than a page holds.
 */
const counted = (count: number) => ({ data: { count }, meta: {} });
const CountAnswer = Type.Object({ data: Type.Object({ count: Type.Integer({ minimum: 0 }) }), meta: Type.Object({}) }, {
    description: 'How many sessions were revoked (or tokens deleted).',
});

/** `GET /sessions/@me`, `DELETE /sessions/:id` (revocation) and `DELETE /sessions` (bulk end). */
export function registerSessionRoutes(app: FastifyInstance, deps: SessionRouteDeps, definition: ResourceDefinition, prefix: string): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = `${prefix}/${definition.spec.collection}`;
    const tags = [definition.spec.collection];
    const record = recordSchema(definition);
    const mountParams = prefix ? { params: idParams(prefix, []) } : {};
    // the caller's current session: reading oneself needs no session_read, like GET /users/@me
    routes.get(`${base}/@me`, contract({
        auth: 'required', tags, summary: 'The session of the request\'s bearer token', ...mountParams, querystring: ReadQuery,
        response: { 200: singleEnvelope(readSchema(definition), 'The current session.') },
    }), async (request) => {
        const ctx = request.context;
        return { data: await readCurrentSession(deps, definition, ctx, request.query as Record<string, unknown>), meta: {} };
    });
    routes.delete(`${base}/:id`, contract({
        auth: 'required', tags, summary: 'End a session (a logout, or a force-logout with session_delete)', params: idParams(prefix),
        response: { 200: singleEnvelope(record, 'The ended session.') },
    }), async (request) => {
        const ctx = request.context;
        return { data: await revokeSession(deps, definition, ctx, request.params.id), meta: {} };
    });
    routes.delete(base, contract({
        auth: 'required', tags, summary: 'End sessions in bulk: the caller\'s other sessions, or those a filter names', ...mountParams,
        querystring: listQuery(definition), response: { 200: CountAnswer },
    }), async (request) => {
        const ctx = request.context;
        return counted(await endSessions(deps, definition, ctx, request.query as Record<string, unknown>));
    });
}

/** `DELETE /session-tokens`: the filter rules of DELETE /sessions, over tokens. */
export function registerSessionTokenRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, prefix: string): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.delete(`${prefix}/${definition.spec.collection}`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'Delete session tokens in bulk, by the filter rules of DELETE /sessions',
        ...(prefix ? { params: idParams(prefix, []) } : {}), querystring: listQuery(definition), response: { 200: CountAnswer },
    }), async (request) => {
        const ctx = request.context;
        return counted(await endSessionTokens(deps, definition, ctx, request.query as Record<string, unknown>));
    });
}
