import type { FastifyInstance } from 'fastify';
import { contextOf } from '../request-context.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import { readCaller } from '../../domains/identity/caller.js';
import type { RouteDeps } from './resource.js';

/** `GET /users/@me`: the caller's own record (API.md §1). */
export function registerUserRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, prefix: string): void {
    app.get(`${prefix}/${definition.spec.collection}/@me`, async (request) => {
        const ctx = await contextOf(deps, request);
        return { data: await readCaller(deps, definition, ctx, 'user', request.query as Record<string, unknown>), meta: {} };
    });
}
