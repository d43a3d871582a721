import { createLocalJWKSet, errors, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters, type JWTVerifyGetKey } from 'jose';
import type { BoundedCache } from '../cache/bounded-cache.js';
import type { OutboundFetch } from '../outbound/guarded-fetch.js';

/**
 * A client's public keys (OIDC Registration §2 `jwks` / `jwks_uri`, RFC 7591 §2): what verifies
 * its client assertions (RFC 7523 §2.2) and its request objects (RFC 9101 §6.2). Inline keys are
 * the stored JSON text; a `jwks_uri` is fetched through the outbound guard (private and loopback
 * addresses refused unless OUTBOUND_ALLOWED_HOSTS allows them), remembered for a while, and fetched
 * again when a JWS names a key the remembered set lacks (the client rotated its keys, OIDC Core
 * §10.1.1) — at most once per short interval, so unknown `kid`s cannot make the server hammer it.
 */

/** The client members that locate its keys: at most one of the two is set (domains/clients/authentication.ts). */
export interface ClientKeySource {
    id: string;
    /** a JWK Set as JSON text */
    jwks: string | null;
    jwksUri: string | null;
}

/** Why no key can verify for a client: none registered, the URL refused or unreachable, the document no JWK Set. */
export class ClientKeysUnavailableError extends Error {
    constructor(message: string, options?: ErrorOptions) {
        super(message, options);
        this.name = 'ClientKeysUnavailableError';
    }
}

/** A remembered key set: where it came from (the inline text or the URL) and when it was read. */
export interface ClientKeySetEntry {
    source: string;
    keys: ReturnType<typeof createLocalJWKSet>;
    fetchedAt: number;
}

export interface ClientKeys {
    /** jose's key getter (jwtVerify, compactVerify) for the client's keys: the protected header picks the key */
    verificationKeys(client: ClientKeySource): JWTVerifyGetKey;
}

export interface ClientKeysOptions {
    fetch: OutboundFetch;
    /** keyed by client id; registered with cache/registry.ts and emptied with the client's writes (wire.ts) */
    cache: BoundedCache<ClientKeySetEntry>;
    clock?: () => number;
    /** how long a fetched set serves before it is fetched again */
    maxAgeMs?: number;
    /** the least time between two fetches caused by an unknown key */
    refetchIntervalMs?: number;
    timeoutMs?: number;
}

/** A fetched set serves five minutes: a key the client withdrew stops verifying within that. */
const MAX_AGE_MS = 5 * 60_000;
/** jose's own cooldown for remote key sets: one fetch per 30 s however many unknown kids arrive. */
const REFETCH_INTERVAL_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;
/** The bound domains/clients/authentication.ts sets on an inline set: a larger document is refused. */
const DOCUMENT_MAX_BYTES = 65_536;

/** The body of a response, refused past `limit` bytes without reading the rest. */
async function boundedText(response: Response, limit: number): Promise<string> {
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > limit) throw new ClientKeysUnavailableError(`the JWK Set is too large (over ${limit} bytes)`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (response.body) {
        for await (const chunk of response.body) {
            size += chunk.byteLength;
            if (size > limit) {
                await response.body.cancel().catch(() => undefined);
                throw new ClientKeysUnavailableError(`the JWK Set is too large (over ${limit} bytes)`);
            }
            chunks.push(chunk);
        }
    }
    return Buffer.concat(chunks).toString('utf8');
}

/** A JWK Set from JSON text; jose refuses what is not one (RFC 7517 §5). */
function keySetOf(text: string, where: string): ClientKeySetEntry['keys'] {
    try {
        return createLocalJWKSet(JSON.parse(text) as JSONWebKeySet);
    } catch (error) {
        throw new ClientKeysUnavailableError(`the ${where} is not a JWK Set`, { cause: error });
    }
}

export function createClientKeys(options: ClientKeysOptions): ClientKeys {
    const clock = options.clock ?? Date.now;
    const maxAge = options.maxAgeMs ?? MAX_AGE_MS;
    const refetchInterval = options.refetchIntervalMs ?? REFETCH_INTERVAL_MS;
    const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
    const cache = options.cache;
    // one fetch per client and URL at a time: concurrent requests wait for the same answer
    const inFlight = new Map<string, Promise<ClientKeySetEntry>>();

    const download = async (uri: string): Promise<ClientKeySetEntry> => {
        let response: Response;
        try {
            response = await options.fetch(uri, {
                method: 'GET', headers: { accept: 'application/jwk-set+json, application/json' }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs),
            });
        } catch (error) {
            throw new ClientKeysUnavailableError(`the jwks_uri could not be fetched: ${(error as Error).message}`, { cause: error });
        }
        if (response.status !== 200) {
            await response.body?.cancel().catch(() => undefined);
            throw new ClientKeysUnavailableError(`the jwks_uri answered ${response.status}`);
        }
        return { source: uri, keys: keySetOf(await boundedText(response, DOCUMENT_MAX_BYTES), 'jwks_uri document'), fetchedAt: clock() };
    };

    const fetchFor = (client: ClientKeySource, uri: string): Promise<ClientKeySetEntry> => {
        const flight = `${client.id}\n${uri}`;
        const pending = inFlight.get(flight);
        if (pending) return pending;
        const generation = cache.mark();
        const started = download(uri).then((entry) => {
            cache.set(client.id, entry, generation);
            return entry;
        }).finally(() => inFlight.delete(flight));
        inFlight.set(flight, started);
        return started;
    };

    const inline = (client: ClientKeySource, jwks: string): ClientKeySetEntry => {
        const source = `inline:${jwks}`;
        const known = cache.get(client.id);
        if (known?.source === source) return known;
        const entry = { source, keys: keySetOf(jwks, 'registered jwks'), fetchedAt: clock() };
        cache.set(client.id, entry);
        return entry;
    };

    const remote = async (client: ClientKeySource, uri: string): Promise<ClientKeySetEntry> => {
        const known = cache.get(client.id);
        if (known?.source === uri && clock() - known.fetchedAt < maxAge) return known;
        return fetchFor(client, uri);
    };

    return {
        verificationKeys(client) {
            return async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
                if (client.jwks !== null) return inline(client, client.jwks).keys(header, token);
                const uri = client.jwksUri;
                if (uri === null) throw new ClientKeysUnavailableError('the client registered no keys (jwks or jwksUri)');
                const entry = await remote(client, uri);
                try {
                    return await entry.keys(header, token);
                } catch (error) {
                    // a key the set lacks: the client may have rotated (OIDC Core §10.1.1) — fetch
                    // again unless the set was fetched within the interval
                    if (!(error instanceof errors.JWKSNoMatchingKey) || clock() - entry.fetchedAt < refetchInterval) throw error;
                    return (await fetchFor(client, uri)).keys(header, token);
                }
            };
        },
    };
}
