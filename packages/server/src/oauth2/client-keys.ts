import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, errors, type FlattenedJWSInput, type JSONWebKeySet, type JWK, type JWSHeaderParameters, type JWTVerifyGetKey } from 'jose';
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
    /** the set's members, and each one's KeyObject once a JWS named it (null: it is no usable public key) */
    members: readonly JWK[];
    keyObjects: Map<number, KeyObject | null>;
    fetchedAt: number;
}

/** The members of a JWS protected header that pick a key (RFC 7515 §4.1.1, §4.1.4). */
export interface KeySelector {
    alg: string;
    kid?: string | undefined;
}

export interface ClientKeys {
    /** jose's key getter (jwtVerify, compactVerify) for the client's keys: the protected header picks the key */
    verificationKeys(client: ClientKeySource): JWTVerifyGetKey;
    /**
     * The client's public keys a JWS with this header may be signed with, as KeyObjects made once
     * per key and kept with the remembered set (the hot path: client assertions). Refused with
     * jose's JWKSNoMatchingKey when none fits, after fetching a jwksUri again as the getter does.
     */
    keyObjects(client: ClientKeySource, selector: KeySelector): Promise<KeyObject[]>;
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
function keySetOf(text: string, where: string, fetchedAt: number): Omit<ClientKeySetEntry, 'source'> {
    try {
        const set = JSON.parse(text) as JSONWebKeySet;
        return { keys: createLocalJWKSet(set), members: set.keys.map((jwk) => ({ ...jwk })), keyObjects: new Map(), fetchedAt };
    } catch (error) {
        throw new ClientKeysUnavailableError(`the ${where} is not a JWK Set`, { cause: error });
    }
}

/** The key type and curve each asymmetric JWS algorithm a client signs with takes (RFC 7518 §3.1, RFC 8037 §3.1). */
const KEY_TYPES: Record<string, { kty: string; crv?: string }> = {
    RS256: { kty: 'RSA' }, PS256: { kty: 'RSA' }, ES256: { kty: 'EC', crv: 'P-256' }, EdDSA: { kty: 'OKP', crv: 'Ed25519' }, Ed25519: { kty: 'OKP', crv: 'Ed25519' },
};

/** JWK members of a private or symmetric key (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2): such a member is never a verification key. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * Whether a member of the set may verify a JWS with `selector`: jose's own rule for a local JWK
 * Set (createLocalJWKSet), so both paths pick the same keys — `key_ops` (if any) unique strings
 * with `verify`, the algorithm's key type and curve, the header's `kid` (if any), the member's
 * `alg` (if any) the header's, `use` (if any) `sig`.
 */
function usable(jwk: JWK, selector: KeySelector): boolean {
    const wanted = KEY_TYPES[selector.alg];
    if (!wanted || jwk.kty !== wanted.kty || (wanted.crv !== undefined && jwk.crv !== wanted.crv)) return false;
    const ops = jwk.key_ops;
    if (ops !== undefined && !(Array.isArray(ops) && ops.every((op, index) => typeof op === 'string' && ops.indexOf(op) === index) && ops.includes('verify'))) return false;
    if (jwk.ext !== undefined && typeof jwk.ext !== 'boolean') return false;
    if (selector.kid !== undefined && jwk.kid !== selector.kid) return false;
    return (jwk.alg === undefined || jwk.alg === selector.alg) && (jwk.use === undefined || jwk.use === 'sig');
}

/** The members `selector` picks, as public KeyObjects made once per member (a member that is none is skipped). */
function pick(entry: ClientKeySetEntry, selector: KeySelector): KeyObject[] {
    const picked: KeyObject[] = [];
    entry.members.forEach((jwk, index) => {
        if (!usable(jwk, selector)) return;
        let key = entry.keyObjects.get(index);
        if (key === undefined) {
            try {
                key = PRIVATE_MEMBERS.some((member) => member in jwk) ? null : createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
            } catch {
                key = null;
            }
            entry.keyObjects.set(index, key);
        }
        if (key) picked.push(key);
    });
    return picked;
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
        return { source: uri, ...keySetOf(await boundedText(response, DOCUMENT_MAX_BYTES), 'jwks_uri document', clock()) };
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
        const entry = { source, ...keySetOf(jwks, 'registered jwks', clock()) };
        cache.set(client.id, entry);
        return entry;
    };

    const remote = async (client: ClientKeySource, uri: string): Promise<ClientKeySetEntry> => {
        const known = cache.get(client.id);
        if (known?.source === uri && clock() - known.fetchedAt < maxAge) return known;
        return fetchFor(client, uri);
    };

    return {
        async keyObjects(client, selector) {
            if (client.jwks !== null) {
                const picked = pick(inline(client, client.jwks), selector);
                if (picked.length === 0) throw new errors.JWKSNoMatchingKey();
                return picked;
            }
            const uri = client.jwksUri;
            if (uri === null) throw new ClientKeysUnavailableError('the client registered no keys (jwks or jwksUri)');
            const entry = await remote(client, uri);
            const picked = pick(entry, selector);
            if (picked.length > 0) return picked;
            // a key the set lacks: the client may have rotated (OIDC Core §10.1.1) — fetched again
            // unless the set was fetched within the interval, as for the getter below
            if (clock() - entry.fetchedAt >= refetchInterval) {
                const again = pick(await fetchFor(client, uri), selector);
                if (again.length > 0) return again;
            }
            throw new errors.JWKSNoMatchingKey();
        },
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
