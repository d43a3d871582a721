import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';

/** Headers of the probe's answer that are not security headers. */
const NOT_SECURITY = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/**
 * What helmet is told beyond its defaults. The answers are JSON, never a document to render, so
 * the policy is the one OWASP's REST Security Cheat Sheet gives for APIs: nothing may load
 * (`default-src 'none'`) and nothing may frame an answer (`frame-ancestors 'none'`,
 * `X-Frame-Options: DENY`). It is also a third of the length of helmet's page policy, and every
 * answer carries it. Pages (the explorer under /docs, the auth pages to come) set their own.
 */
const API_POLICY = {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: 'deny' as const },
};

/**
 * The headers @fastify/helmet sends with its defaults and API_POLICY (the Content-Security-Policy,
 * `nosniff`, HSTS, frame denial, …), taken once from a probe instance. @fastify/helmet rebuilds helmet's
 * middleware chain, CSP directives included, on every request (about 60 µs each, measured on the
 * token and bearer hot paths); the defaults do not depend on the request, so the values are the
 * same on every answer and can be computed at boot.
 */
async function helmetDefaultHeaders(): Promise<Record<string, string>> {
    const probe = Fastify({ logger: false });
    await probe.register(helmet, { global: true, ...API_POLICY });
    probe.get('/', async () => ({}));
    const answer = await probe.inject({ method: 'GET', url: '/' });
    await probe.close();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
        if (!NOT_SECURITY.has(name) && typeof value === 'string') headers[name] = value;
    }
    return headers;
}

/** The probe's answer depends on nothing configured: one probe per process, whatever the number of apps. */
let probedHeaders: Promise<Record<string, string>> | null = null;

/**
 * Security headers on every answer — API answers, errors, 404s and the pages to come: the hook is
 * registered first, so it sets them before any other hook can end the request. The explorer
 * under /docs replaces the CSP with one its assets need (http/openapi.ts).
 *
 * `publicUrl` is the address browsers reach this listener at. Strict-Transport-Security goes only
 * with an https one: RFC 6797 §7.2 has a host ignore it over plain http, and a plain-http deployment
 * that sent it would, once reached through https on the same name, pin browsers to https it does not serve.
 */
export async function registerSecurityHeaders(app: FastifyInstance, publicUrl: string): Promise<void> {
    const probed = await (probedHeaders ??= helmetDefaultHeaders());
    const https = new URL(publicUrl).protocol === 'https:';
    const headers = https ? probed : Object.fromEntries(Object.entries(probed).filter(([name]) => name !== 'strict-transport-security'));
    app.addHook('onRequest', async (_request, reply) => {
        reply.headers(headers);
    });
}
