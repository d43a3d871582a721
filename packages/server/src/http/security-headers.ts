import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Security headers (@fastify/helmet) on every answer — API answers, errors, 404s and the pages to
 * come: registered first, its onRequest hook sets them before any other hook can end the request.
 * Helmet's defaults are kept (a strict Content-Security-Policy, `nosniff`, HSTS, frame denial);
 * the explorer under /docs replaces the CSP with one its assets need (http/openapi.ts).
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
    await app.register(helmet, { global: true });
}
