import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';

/** Headers of the probe's answer that are not security headers. */
const NOT_SECURITY = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/**
 * The headers @fastify/helmet sends with its defaults (a strict Content-Security-Policy, `nosniff`,
 * HSTS, frame denial, …), taken once from a probe instance. @fastify/helmet rebuilds helmet's
 * middleware chain, CSP directives included, on every request (about 60 µs each, measured on the
 * token and bearer hot paths); the defaults do not depend on the request, so the values are the
 * same on every answer and can be computed at boot.
 */
async function helmetDefaultHeaders(): Promise<Record<string, string>> {
    const probe = Fastify({ logger: false });
    await probe.register(helmet, { global: true });
    probe.get('/', async () => ({}));
    const answer = await probe.inject({ method: 'GET', url: '/' });
    await probe.close();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
        if (!NOT_SECURITY.has(name) && typeof value === 'string') headers[name] = value;
    }
    return headers;
}

/**
 * Security headers on every answer — API answers, errors, 404s and the pages to come: the hook is
 * registered first, so it sets them before any other hook can end the request. The explorer
 * under /docs replaces the CSP with one its assets need (http/openapi.ts).
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
    const headers = await helmetDefaultHeaders();
    app.addHook('onRequest', async (_request, reply) => {
        reply.headers(headers);
    });
}
