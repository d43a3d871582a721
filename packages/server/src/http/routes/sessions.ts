import type { FastifyInstance } from 'fastify';
import { contextOf } from '../request-context.js';
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

/** `GET /sessions/@me`, `DELETE /sessions/:id` (revocation) and `DELETE /sessions` (bulk end). */
export function registerSessionRoutes(app: FastifyInstance, deps: SessionRouteDeps, definition: ResourceDefinition, prefix: string): void {
    const base = `${prefix}/${definition.spec.collection}`;
    app.get(`${base}/@me`, async (request) => {
        const ctx = await contextOf(deps, request);
        return { data: await readCurrentSession(deps, definition, ctx, request.query as Record<string, unknown>), meta: {} };
    });
    app.delete<{ Params: { id: string } }>(`${base}/:id`, async (request) => {
        const ctx = await contextOf(deps, request);
        return { data: await revokeSession(deps, definition, ctx, request.params.id), meta: {} };
    });
    app.delete(base, async (request) => {
        const ctx = await contextOf(deps, request);
        return counted(await endSessions(deps, definition, ctx, request.query as Record<string, unknown>));
    });
}

/** `DELETE /session-tokens`: the filter rules of DELETE /sessions, over tokens. */
export function registerSessionTokenRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, prefix: string): void {
    app.delete(`${prefix}/${definition.spec.collection}`, async (request) => {
        const ctx = await contextOf(deps, request);
        return counted(await endSessionTokens(deps, definition, ctx, request.query as Record<string, unknown>));
    });
}
