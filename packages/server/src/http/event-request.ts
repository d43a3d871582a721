import type { FastifyRequest } from 'fastify';
import type { AuthEventRequest } from '../tokens/auth-events.js';

/** What an auth event keeps of its request: the address, the method and the route (never the query: it may carry a secret). */
export function requestOfEvent(request: FastifyRequest): AuthEventRequest {
    return { ip: request.ip ?? null, method: request.method, path: request.routeOptions.url ?? null };
}
