import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findClientsNamingOrigin } from '../storage/client-origins.js';

/** How long one replica trusts an origin lookup; a client edit reaches every replica within it. */
export const CORS_LOOKUP_TTL_MS = 5_000;
const MAX_REMEMBERED = 10_000;

/** The origin of a URL (RFC 6454 §6.1), or null when it has none (not http(s), malformed). */
function originOf(value: string): string | null {
    try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
    } catch {
        return null;
    }
}

/** `CORS_ORIGINS` (API.md §7): comma- or space-separated origins; anything else stops the boot. */
function parseConfiguredOrigins(value: string | undefined): Set<string> {
    const origins = new Set<string>();
    for (const entry of (value ?? '').split(/[\s,]+/).filter(Boolean)) {
        const origin = originOf(entry);
        if (origin === null || origin !== entry.replace(/\/$/, '')) throw new Error(`CORS_ORIGINS: "${entry}" is not an origin (scheme://host[:port]).`);
        origins.add(origin);
    }
    return origins;
}

export interface CorsOriginDeps {
    db: Kysely<Database>;
    /** `CORS_ORIGINS` */
    configured: string | undefined;
    clock?: () => number;
}

/**
 * Whether an origin may read answers: a configured one, or one a client names through its redirect
 * URIs or base URL. The lookup runs only for requests that carry an `Origin` header (browsers),
 * never on the server-to-server hot paths, and each answer is remembered for a short TTL rather
 * than forever: the clients table is shared by every replica, so an edited or deleted client
 * must stop (or start) counting everywhere soon, without a cross-replica invalidation bus.
 */
export function createOriginCheck(deps: CorsOriginDeps): (origin: string) => Promise<boolean> {
    const configured = parseConfiguredOrigins(deps.configured);
    const clock = deps.clock ?? Date.now;
    const remembered = new Map<string, { allowed: boolean; until: number }>();
    return async (origin) => {
        if (configured.has(origin)) return true;
        const now = clock();
        const known = remembered.get(origin);
        if (known && known.until > now) return known.allowed;
        const canonical = originOf(origin);
        let allowed = false;
        if (canonical === origin) {
            const clients = await findClientsNamingOrigin(deps.db, origin);
            allowed = clients.some((client) => [...(client.redirectUri ?? '').split(/\s+/), client.baseUrl ?? '']
                .some((uri) => uri !== '' && originOf(uri) === origin));
        }
        if (remembered.size >= MAX_REMEMBERED) remembered.clear();
        remembered.set(origin, { allowed, until: now + CORS_LOOKUP_TTL_MS });
        return allowed;
    };
}

/**
 * CORS (Fetch standard) for the browser flows: an allowed origin gets `Access-Control-Allow-Origin`
 * (and the preflight its methods and headers); any other origin gets no CORS header at all, so the
 * browser keeps the answer from the page. CORS only lets a page read what it may already send:
 * authorization is still decided by the credential (Basic or Bearer) alone.
 */
export async function registerCors(app: FastifyInstance, isAllowed: (origin: string) => Promise<boolean>): Promise<void> {
    await app.register(cors, {
        origin: (origin, callback) => {
            if (origin === undefined) return callback(null, false);
            isAllowed(origin).then((allowed) => callback(null, allowed), (error: Error) => callback(error, false));
        },
        methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
        allowedHeaders: ['Authorization', 'Content-Type'],
        exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'WWW-Authenticate'],
        maxAge: 600,
    });
}
