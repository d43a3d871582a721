import { createHash, type KeyObject } from 'node:crypto';
import {
    createAuthorizationEvaluator,
    isAuthorizationCatalogStaleError,
    isPermissionDeniedError,
    type AuthorizationCatalog,
    type AuthorizationEvaluateContext,
    type AuthorizationEvaluator,
    type AuthorizationGrant,
    type PolicyIdentity,
} from '@realmgate/access';
import { basicAuth, clientCredentials, createClient, isRealmgateError, RealmgateError, type RealmgateClient, type TokenSource } from '@realmgate/client';
import { ErrorCode } from '@realmgate/core';
import { createDpopCheck, invalidProof, type DpopRequest } from './dpop.js';
import { importJwk, invalidToken, verifyAccessToken, type AccessTokenClaims } from './jwt.js';

/** How a token is checked: `local` verifies its signature here, `remote` introspects it (RFC 7662). */
export type VerificationMode = 'local' | 'remote';

export interface VerifierOptions {
    /** the Realmgate server, e.g. http://localhost:3000 */
    baseUrl: string;
    mode: VerificationMode;
    /** the resource server's own confidential client: the catalog and introspection are its calls (spec consumer rule 12) */
    credentials: { clientId: string; clientSecret: string; realmId?: string; realmName?: string };
    /** realm ids or names this resource server serves; a token of any other realm is refused (default: any) */
    realms?: readonly string[];
    /**
     * this resource server's resource indicator — the `audience` its client registered (RFC 8707
     * §2; RFC 9068 §4): a token whose `aud` names another resource server is refused. A token
     * narrowed to none is good at every resource server of its realm and is accepted: its `aud` is
     * its realm's issuer (the default when the realm sets no `defaultAudience`), or it has none (an
     * access token signed before RFC 9068)
     */
    audience?: string;
    /** scopes every token must carry; the server withholds identity data without `global` (consumer rule 12) */
    requiredScopes?: readonly string[];
    /** remote mode: keep an introspection answer this many seconds, keyed by a digest of the token (default 0: none) */
    introspectionCacheSeconds?: number;
    /** local mode: keep a fetched key this many seconds (default 300) */
    keyCacheSeconds?: number;
    /** local mode: seconds of clock skew allowed on `exp` and `nbf` (RFC 7519 §4.1.4); default 0 */
    clockToleranceSeconds?: number;
    /**
     * where a failed catalog fetch is reported, once per streak of failures (the Fastify plugin
     * passes its logger); default console
     */
    logger?: { warn(message: string): void };
    /** the clock (milliseconds), replaceable for tests */
    now?: () => number;
    /** a client of your own (retry policy, fetch); default: one for baseUrl without 429 retries */
    client?: RealmgateClient;
}

/** The introspection answer (RFC 7662 §2.2) with Realmgate's members (spec "Grant"). */
export interface Introspection {
    active: boolean;
    sub?: string;
    sub_kind?: 'user' | 'client';
    kind?: string;
    realm_id?: string;
    realm_name?: string;
    client_id?: string;
    scope?: string;
    exp?: number;
    /** RFC 9068 §2.2: the token's issuer and audience (the resource server it is for, RFC 8707 §2) */
    iss?: string;
    aud?: string;
    jti?: string;
    iat?: number;
    /** RFC 9449 §6.2: the DPoP key a bound token is bound to */
    cnf?: { jkt?: unknown };
    permissions?: AuthorizationGrant[];
    [member: string]: unknown;
}

/** Who a request acts as, and its decisions. */
export interface RealmgateAuth {
    token: string;
    mode: VerificationMode;
    /** the policy identity (spec consumer rule 1) */
    identity: PolicyIdentity;
    /** the client the token was issued to, when any */
    clientId: string | null;
    /** the thumbprint of the DPoP key a bound token was proven with (RFC 9449 §7); null for a bearer token */
    dpopJkt: string | null;
    scopes: readonly string[];
    /** the evaluator of this request: catalog, fresh introspection grants and identity (built once) */
    evaluator(): Promise<AuthorizationEvaluator>;
    /** resolves when allowed; rejects with a 403 RealmgateError when denied */
    evaluate(context: AuthorizationEvaluateContext): Promise<void>;
    evaluateOneOf(context: AuthorizationEvaluateContext): Promise<void>;
    /** the pre-check before the row is loaded: a policy that needs the row passes (consumer rule 8) */
    preEvaluate(context: AuthorizationEvaluateContext): Promise<void>;
    preEvaluateOneOf(context: AuthorizationEvaluateContext): Promise<void>;
    hasScope(scope: string): boolean;
}

export interface Verifier {
    /**
     * the request's Authorization header (`Bearer …`, or `DPoP …` for a DPoP-bound token) to its
     * auth, or a RealmgateError (401, 403, 503); `request` (method, absolute URL, `DPoP` header) is
     * what a DPoP proof is checked against — without it a bound token is refused
     */
    verify(authorizationHeader: string | undefined, request?: DpopRequest): Promise<RealmgateAuth>;
    /** the cached catalog of this credential (fetched on first use) */
    catalog(): Promise<AuthorizationCatalog>;
}

/** how long a kid the realm answered 404 for stays refused without asking again */
const UNKNOWN_KEY_SECONDS = 30;

const unavailable = (message: string, cause?: unknown) => new RealmgateError({ statusCode: 503, code: ErrorCode.INTERNAL_ERROR, message, cause });
const denied = (message: string) => new RealmgateError({ statusCode: 403, code: ErrorCode.PERMISSION_DENIED, message });
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Whether a token is for the resource server `audience` (RFC 9068 §4, RFC 8707 §2): its `aud` — one
 * string or an array of them (RFC 7519 §4.1.3) — names it, or names the token's own issuer (a
 * token for every resource server of its realm), or is absent (a token signed before RFC 9068).
 */
function isForAudience(aud: unknown, iss: unknown, audience: string): boolean {
    if (aud === undefined) return true;
    const names: readonly unknown[] = Array.isArray(aud) ? aud : [aud];
    return names.includes(audience) || (typeof iss === 'string' && names.includes(iss));
}

/** Why a call failed, for the log: the protocol code (`invalid_client`) and message, never a credential. */
function reasonOf(error: unknown): string {
    if (!isRealmgateError(error)) return error instanceof Error ? error.message : String(error);
    const code = error.error ?? error.code;
    return `${code} (${error.statusCode === 0 ? 'no answer' : `HTTP ${error.statusCode}`}): ${error.message}`;
}

/** Fail closed on a malformed catalog (spec "Upgrade order" step 5): both members present and of their type. */
function checkCatalog(value: unknown): AuthorizationCatalog {
    const catalog = value as Partial<AuthorizationCatalog> | null;
    if (!catalog || typeof catalog.policies !== 'object' || catalog.policies === null || !Array.isArray(catalog.permissions)) {
        throw unavailable('the authorization catalog is malformed');
    }
    return catalog as AuthorizationCatalog;
}

export function createVerifier(options: VerifierOptions): Verifier {
    const now = options.now ?? Date.now;
    const client = options.client ?? createClient({ baseUrl: options.baseUrl, retry: false });
    const introspectionAuth = basicAuth(options.credentials.clientId, options.credentials.clientSecret);
    const ownToken: TokenSource = clientCredentials(client, options.credentials, { now });
    const cacheMs = (options.introspectionCacheSeconds ?? 0) * 1000;
    const keyCacheMs = (options.keyCacheSeconds ?? 300) * 1000;
    const tolerance = options.clockToleranceSeconds ?? 0;
    const keys = new Map<string, { until: number; key: Promise<{ key: KeyObject; alg: string }> }>();
    const introspections = new Map<string, { until: number; answer: Introspection }>();
    /**
     * local mode: a token whose signature was verified, by a digest of it, until its expiry or the
     * end of its key's cache window, whichever comes first — a repeated bearer pays a hash, not a
     * signature check, and nothing is trusted longer than the key it was checked with
     */
    const verified = new Map<string, { until: number; claims: AccessTokenClaims }>();
    let catalog: Promise<AuthorizationCatalog> | undefined;

    function keyOf(realmId: string, kid: string): Promise<{ key: KeyObject; alg: string }> {
        const id = `${realmId}/${kid}`;
        const cached = keys.get(id);
        if (cached && cached.until > now()) return cached.key;
        // the key of the token's own realm (spec Authentication 4): a kid of another realm answers 404
        const key = client.getJwksByKidInRealm({ params: { realmId, kid }, auth: null }).then((jwk) => {
            const alg = typeof jwk.alg === 'string' ? jwk.alg : '';
            return { key: importJwk(jwk), alg };
        }, (error: unknown) => {
            if (isRealmgateError(error) && error.statusCode === 404) {
                // a kid the realm does not have stays refused for a while: forged kids must not
                // turn into one request to the server each
                keys.set(id, { until: now() + Math.min(UNKNOWN_KEY_SECONDS * 1000, keyCacheMs), key });
                throw invalidToken('unknown signing key');
            }
            keys.delete(id);
            throw unavailable('the signing key could not be fetched', error);
        });
        // the rejection is handled by whoever awaits it; the cached copy must not count as unhandled
        key.catch(() => undefined);
        keys.set(id, { until: now() + keyCacheMs, key });
        // the cache never outgrows what it needs: drop what has lapsed
        if (keys.size > 10_000) for (const [entry, value] of keys) if (value.until <= now()) keys.delete(entry);
        return key;
    }

    async function introspect(token: string, useCache: boolean): Promise<Introspection> {
        const id = cacheMs > 0 ? digest(token) : '';
        if (useCache && cacheMs > 0) {
            const cached = introspections.get(id);
            if (cached && cached.until > now()) return cached.answer;
        }
        let answer: Introspection;
        try {
            answer = await client.postTokenIntrospect({ body: { token }, form: true, auth: introspectionAuth }) as Introspection;
        } catch (error) {
            throw unavailable('introspection failed', error);
        }
        if (answer.active !== true) throw invalidToken('the token is not active', ErrorCode.INACTIVE_TOKEN);
        if (cacheMs > 0) {
            const expires = typeof answer.exp === 'number' ? answer.exp * 1000 : Infinity;
            introspections.set(id, { until: Math.min(now() + cacheMs, expires), answer });
            // the cache never outgrows what a short window can hold: drop what has lapsed
            if (introspections.size > 10_000) for (const [key, entry] of introspections) if (entry.until <= now()) introspections.delete(key);
        }
        return answer;
    }

    const logger = options.logger ?? console;
    /** whether the last catalog fetch failed: a streak of failures is reported once, at its start */
    let failing = false;
    async function fetchCatalog(): Promise<AuthorizationCatalog> {
        try {
            const fetched = checkCatalog(await client.getAuthorization({ auth: ownToken }));
            failing = false;
            return fetched;
        } catch (error) {
            if (isRealmgateError(error) && error.statusCode === 401) ownToken.invalidate();
            if (!failing) logger.warn(`realmgate: the authorization catalog could not be fetched: ${reasonOf(error)}`);
            failing = true;
            throw isRealmgateError(error) && error.statusCode === 503 ? error : unavailable('the authorization catalog is unavailable', error);
        }
    }
    function currentCatalog(): Promise<AuthorizationCatalog> {
        catalog ??= fetchCatalog().catch((error: unknown) => {
            catalog = undefined;
            throw error;
        });
        return catalog;
    }

    function build(current: AuthorizationCatalog, answer: Introspection, identity: PolicyIdentity): AuthorizationEvaluator {
        // spec consumer rule 2 and "Upgrade order" step 5: no evaluator without a grant list
        if (!Array.isArray(answer.permissions)) throw unavailable('the introspection carries no grant list');
        return createAuthorizationEvaluator({ catalog: current, grants: answer.permissions, identity });
    }

    async function evaluatorFor(token: string, identity: PolicyIdentity, first: Introspection | undefined): Promise<AuthorizationEvaluator> {
        const used = await currentCatalog();
        try {
            return build(used, first ?? await introspect(token, true), identity);
        } catch (error) {
            // spec consumer rule 4: a grant the copy lacks means the copy is older; refetch and rebuild with fresh grants
            if (!isAuthorizationCatalogStaleError(error)) throw isRealmgateError(error) ? error : unavailable('the authorization catalog or grants are malformed');
            if (catalog && await catalog.catch(() => undefined) === used) catalog = undefined;
            try {
                return build(await currentCatalog(), await introspect(token, false), identity);
            } catch (again) {
                throw isRealmgateError(again) ? again : unavailable('the authorization catalog stays stale');
            }
        }
    }

    async function verifyLocally(token: string): Promise<AccessTokenClaims> {
        const at = now();
        const key = digest(token);
        const hit = verified.get(key);
        if (hit && hit.until > at) return hit.claims;
        const claims = await verifyAccessToken(token, keyOf, Math.floor(at / 1000), tolerance);
        // bounded: past 10,000 entries the lapsed ones go, and if none lapsed the oldest
        if (verified.size >= 10_000) {
            for (const [entry, value] of verified) if (value.until <= at) verified.delete(entry);
            if (verified.size >= 10_000) verified.delete(verified.keys().next().value!);
        }
        verified.set(key, { until: Math.min((claims.exp + tolerance) * 1000, at + keyCacheMs), claims });
        return claims;
    }

    const served = options.realms ? new Set(options.realms) : null;

    const checkProof = createDpopCheck(now);

    /**
     * RFC 9449 §7: a token bound to a key (`cnf.jkt`) only under the DPoP scheme with a proof of
     * that key over this request, never as a bearer (§7.2); an unbound token never under DPoP.
     */
    function senderConstraint(token: string, scheme: string, bound: unknown, request: DpopRequest | undefined): string | null {
        const jkt = typeof bound === 'string' ? bound : null;
        if (scheme !== 'dpop') {
            if (jkt !== null) throw invalidToken('the token is DPoP-bound: present it with the DPoP scheme and a proof');
            return null;
        }
        if (jkt === null) throw invalidToken('the token is not DPoP-bound');
        if (!request) throw invalidProof('the request was not handed to the verifier, so its DPoP proof cannot be checked');
        checkProof(token, jkt, request);
        return jkt;
    }

    async function verify(header: string | undefined, request?: DpopRequest): Promise<RealmgateAuth> {
        const match = header ? /^(Bearer|DPoP)\s+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header) : null;
        if (!match) throw invalidToken('a bearer token is required');
        const scheme = match[1]!.toLowerCase();
        const token = match[2]!;
        let subject: {
            sub: string; sub_kind: 'user' | 'client'; realm_id: string; realm_name: string; client_id?: string | undefined; scope?: string | undefined; aud?: unknown; iss?: unknown;
            cnf?: { jkt?: unknown } | undefined;
        };
        let introspected: Introspection | undefined;
        if (options.mode === 'local') {
            subject = await verifyLocally(token);
        } else {
            introspected = await introspect(token, true);
            const { sub, sub_kind, realm_id, realm_name, kind } = introspected;
            if (typeof sub !== 'string' || (sub_kind !== 'user' && sub_kind !== 'client') || typeof realm_id !== 'string' || typeof realm_name !== 'string') {
                throw invalidToken('the token names no subject');
            }
            if (kind !== undefined && kind !== 'access_token') throw invalidToken('not an access token');
            subject = { sub, sub_kind, realm_id, realm_name, client_id: introspected.client_id, scope: introspected.scope, aud: introspected.aud, iss: introspected.iss, cnf: introspected.cnf };
        }
        // RFC 8707 §2, RFC 9068 §4: a token for another resource server is not for this one
        if (options.audience !== undefined && !isForAudience(subject.aud, subject.iss, options.audience)) {
            throw invalidToken('the token is for another resource server');
        }
        const dpopJkt = senderConstraint(token, scheme, subject.cnf?.jkt, request);
        if (served && !served.has(subject.realm_id) && !served.has(subject.realm_name)) throw invalidToken('the token belongs to a realm this server does not serve');
        const scopes = (subject.scope ?? '').split(' ').filter(Boolean);
        for (const scope of options.requiredScopes ?? []) if (!scopes.includes(scope)) throw denied(`the token lacks the scope ${scope}`);
        // spec consumer rule 1: clientId is the subject id when the subject is a client
        const identity: PolicyIdentity = {
            id: subject.sub, type: subject.sub_kind, realmId: subject.realm_id, realmName: subject.realm_name,
            clientId: subject.sub_kind === 'client' ? subject.sub : null,
        };
        let evaluator: Promise<AuthorizationEvaluator> | undefined;
        const evaluatorOnce = () => (evaluator ??= evaluatorFor(token, identity, introspected));
        const decide = (method: 'evaluate' | 'evaluateOneOf' | 'preEvaluate' | 'preEvaluateOneOf') => async (context: AuthorizationEvaluateContext) => {
            const built = await evaluatorOnce();
            try {
                await built[method](context);
            } catch (error) {
                throw isPermissionDeniedError(error) ? denied((error as Error).message) : error;
            }
        };
        return {
            token,
            mode: options.mode,
            identity,
            clientId: subject.client_id ?? null,
            dpopJkt,
            scopes,
            evaluator: evaluatorOnce,
            evaluate: decide('evaluate'),
            evaluateOneOf: decide('evaluateOneOf'),
            preEvaluate: decide('preEvaluate'),
            preEvaluateOneOf: decide('preEvaluateOneOf'),
            hasScope: (scope) => scopes.includes(scope),
        };
    }

    return { verify, catalog: currentCatalog };
}
