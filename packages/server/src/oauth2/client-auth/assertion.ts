import { createSecretKey, type KeyObject } from 'node:crypto';
import { errors } from 'jose';
import type { ReplayGuard } from '../../limits/replay-guard.js';
import { decodeJws, type DecodedJws } from '../../tokens/jws.js';
import { jwsSignatureHolds } from '../../tokens/jws-signature.js';
import type { ClientKeys, KeySelector } from '../client-keys.js';

/** RFC 7523 §2.2: the one client assertion type. */
const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * The signature algorithms each JWT method accepts (RFC 7518 §3.1). private_key_jwt: asymmetric
 * keys only — never `none`, never an HMAC, which would make a public key a shared secret (RFC 8725
 * §2.1, §3.1); client_secret_jwt: an HMAC keyed with the client's secret (OIDC Core §9).
 */
export const PRIVATE_KEY_JWT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
export const CLIENT_SECRET_JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;

/** RFC 7523 §3 item 4: an assertion lives minutes at most; one that claims longer is refused. */
const MAX_LIFETIME_SECONDS = 300;
/** The clock difference between the client and the server we tolerate (RFC 7523 §3 items 4, 5: "reasonably small"). */
const CLOCK_SKEW_SECONDS = 30;

/** What a request presents as a client assertion (RFC 7521 §4.2). */
export interface PresentedAssertion {
    jwt: string;
    /** its parts, decoded once (tokens/jws.ts) and verified by verifyClientAssertion */
    decoded: DecodedJws;
    /** the method its `alg` means: an HMAC → client_secret_jwt, else private_key_jwt */
    method: 'client_secret_jwt' | 'private_key_jwt';
    /** the unverified `sub`: the client it names (RFC 7523 §3 item 2), used to look the client up */
    subject: string;
    /** its JWS `alg`, one of the method's (a realm's profile may accept fewer) */
    algorithm: string;
}

/** Why an assertion is refused: every one answers invalid_client (RFC 7521 §4.2.1). */
export class AssertionRefusedError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'AssertionRefusedError';
    }
}

/**
 * The last assertion decoded, by its text: a request's realm step (steps.ts presentedClientId) and
 * its client authentication read the same one, in the same run of microtasks once the realm is
 * remembered. The decoded parts are only ever read.
 */
let lastDecoded: { jwt: string; decoded: DecodedJws | null } | undefined;

function decodeOnce(jwt: string): DecodedJws | null {
    if (lastDecoded?.jwt === jwt) return lastDecoded.decoded;
    const decoded = decodeJws(jwt);
    lastDecoded = { jwt, decoded };
    return decoded;
}

/**
 * The assertion a request carries, read but not verified: the method its `alg` names and the
 * client it names. Null when the request has none. `client_assertion_type` and
 * `client_assertion` come together (RFC 7521 §4.2).
 */
export function presentedAssertion(body: { client_assertion?: string; client_assertion_type?: string }): PresentedAssertion | null {
    const { client_assertion: jwt, client_assertion_type: type } = body;
    if (jwt === undefined && type === undefined) return null;
    if (jwt === undefined || type === undefined) throw new AssertionRefusedError('client_assertion and client_assertion_type come together (RFC 7521 §4.2).');
    if (type !== JWT_BEARER_ASSERTION_TYPE) throw new AssertionRefusedError(`The client_assertion_type ${type} is not supported; ${JWT_BEARER_ASSERTION_TYPE} is.`);
    // RFC 7519 §7.2: a JWS in compact serialization whose payload is a JSON object
    const decoded = decodeOnce(jwt);
    if (!decoded) throw new AssertionRefusedError('The client assertion is not a JWT.');
    const { header: { alg }, payload } = decoded;
    const method = (CLIENT_SECRET_JWT_ALGORITHMS as readonly unknown[]).includes(alg) ? 'client_secret_jwt' :
        (PRIVATE_KEY_JWT_ALGORITHMS as readonly unknown[]).includes(alg) ? 'private_key_jwt' : null;
    if (method === null) throw new AssertionRefusedError(`The client assertion's alg ${JSON.stringify(alg)} is not accepted.`);
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new AssertionRefusedError('The client assertion has no sub (RFC 7523 §3 item 2).');
    return { jwt, decoded, method, subject: payload.sub, algorithm: String(alg) };
}

/** The unverified `sub` of a request's assertion, to locate the realm of its client; never trusted beyond that. */
export function assertionSubject(body: { client_assertion?: string; client_assertion_type?: string }): string | undefined {
    try {
        return presentedAssertion(body)?.subject;
    } catch {
        return undefined;
    }
}

/** What verifies an assertion: the keys, the single-use store, and the audiences this endpoint answers to. */
export interface ClientAssertionDeps {
    keys: ClientKeys;
    replayGuard: ReplayGuard;
    /**
     * The URLs of the endpoint that authenticates (RFC 7523 §3 item 3: "the token endpoint URL of
     * the authorization server MAY be used"; OIDC Core §9): its PUBLIC_URL one and its mutual-TLS alias
     */
    endpointUrls: readonly string[];
    clock?: () => number;
}

/** The client an assertion must name, and how it is verified. */
export interface AssertionSubject {
    realmId: string;
    /** the client's id: one replay key however the assertion names the client */
    clientId: string;
    /** the realm's issuer (RFC 8414 §2), the audience RFC 7523 §3 item 3 names first */
    issuer: string;
    /** the client identifier as the assertion presents it (its id or its name) */
    clientIdentifier: string;
    /** its key: the client's registered keys for a header (private_key_jwt) or its secret as HMAC key (client_secret_jwt) */
    key: ((selector: KeySelector) => Promise<readonly KeyObject[]>) | Uint8Array;
    algorithms: readonly string[];
}

/** A claim the assertion must carry, as jose words its absence (the reasons clients saw before). */
function requireClaim(payload: Record<string, unknown>, claim: string): void {
    if (!Object.hasOwn(payload, claim)) throw new AssertionRefusedError(`The client assertion does not verify: missing required "${claim}" claim`);
}

/** A NumericDate claim (RFC 7519 §2): absent, or a number. */
function numericDate(payload: Record<string, unknown>, claim: 'exp' | 'nbf' | 'iat'): number | undefined {
    const value = payload[claim];
    if (value === undefined) return undefined;
    if (typeof value !== 'number') throw new AssertionRefusedError(`The client assertion does not verify: "${claim}" claim must be a number`);
    return value;
}

/**
 * RFC 7515 §4.1.11: a `crit` header names extensions the recipient must understand, and this one
 * understands none — so a JWS with `crit` is refused, and with it RFC 7797's unencoded payload
 * (`b64: false`), which a JWT may never use (RFC 7797 §7).
 */
function assertPlainHeader(header: Record<string, unknown>): void {
    if (header.crit !== undefined) throw new AssertionRefusedError('The client assertion does not verify: its header names critical extensions (RFC 7515 §4.1.11).');
    if (header.b64 !== undefined && header.b64 !== true) throw new AssertionRefusedError('The client assertion does not verify: JWTs MUST NOT use unencoded payload (RFC 7797 §7).');
}

/** The signature under one of the keys (several may fit a header without kid), else refused. */
async function assertSigned(assertion: PresentedAssertion, subject: AssertionSubject): Promise<void> {
    const { header, signingInput, signature } = assertion.decoded;
    const alg = assertion.algorithm;
    let candidates: readonly KeyObject[];
    if (subject.key instanceof Uint8Array) {
        candidates = [createSecretKey(subject.key)];
    } else {
        const selector: KeySelector = { alg, ...(typeof header.kid === 'string' ? { kid: header.kid } : {}) };
        // a kid that is no string names no key (RFC 7515 §4.1.4)
        if (header.kid !== undefined && typeof header.kid !== 'string') throw new AssertionRefusedError(`The client assertion does not verify: ${reasonOf(new errors.JWKSNoMatchingKey())}`);
        try {
            candidates = await subject.key(selector);
        } catch (error) {
            throw new AssertionRefusedError(`The client assertion does not verify: ${reasonOf(error)}`);
        }
    }
    const input = Buffer.from(signingInput);
    if (!candidates.some((key) => jwsSignatureHolds(alg, key, input, signature))) {
        throw new AssertionRefusedError('The client assertion does not verify: signature verification failed');
    }
}

/**
 * RFC 7523 §3 (and OIDC Core §9): the signature under the client's key with an allowed algorithm
 * (the header's `alg` checked against the allowlist and against the key's type, RFC 8725 §3.1);
 * `iss` and `sub` the client (items 1, 2); `aud` the issuer or this endpoint (item 3); `exp` present
 * and not past, and at most five minutes ahead (item 4); `nbf` not ahead (item 5); `jti` present
 * and never seen before within the assertion's life, on any replica (item 7, RFC 7523 §5.2).
 * Verified with node:crypto (tokens/jws-signature.ts), the claims as jose's jwtVerify checks them.
 */
export async function verifyClientAssertion(deps: ClientAssertionDeps, assertion: PresentedAssertion, subject: AssertionSubject): Promise<void> {
    const now = (deps.clock ?? Date.now)();
    // jose's NumericDate of the current time: whole seconds
    const nowSeconds = Math.floor(now / 1000);
    const { header, payload } = assertion.decoded;
    if (typeof header.alg !== 'string' || header.alg !== assertion.algorithm || !subject.algorithms.includes(header.alg)) {
        throw new AssertionRefusedError(`The client assertion does not verify: "alg" (Algorithm) Header Parameter value not allowed`);
    }
    assertPlainHeader(header as Record<string, unknown>);
    await assertSigned(assertion, subject);
    for (const claim of ['iss', 'sub', 'aud', 'jti', 'exp']) requireClaim(payload, claim);
    if (payload.iss !== subject.clientIdentifier) throw new AssertionRefusedError('The client assertion does not verify: unexpected "iss" claim value');
    if (payload.sub !== subject.clientIdentifier) throw new AssertionRefusedError('The client assertion does not verify: unexpected "sub" claim value');
    const audiences = [subject.issuer, ...deps.endpointUrls];
    const aud = payload.aud;
    const audienceHolds = typeof aud === 'string' ? audiences.includes(aud) : Array.isArray(aud) && aud.some((value) => typeof value === 'string' && audiences.includes(value));
    if (!audienceHolds) throw new AssertionRefusedError('The client assertion does not verify: unexpected "aud" claim value');
    numericDate(payload, 'iat');
    const nbf = numericDate(payload, 'nbf');
    if (nbf !== undefined && nbf > nowSeconds + CLOCK_SKEW_SECONDS) throw new AssertionRefusedError('The client assertion does not verify: "nbf" claim timestamp check failed');
    const exp = numericDate(payload, 'exp')!;
    if (exp <= nowSeconds - CLOCK_SKEW_SECONDS) throw new AssertionRefusedError('The client assertion does not verify: "exp" claim timestamp check failed');
    if (exp > now / 1000 + MAX_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) {
        throw new AssertionRefusedError(`The client assertion's exp is more than ${MAX_LIFETIME_SECONDS} seconds ahead (RFC 7523 §3 item 4).`);
    }
    if (typeof payload.jti !== 'string' || payload.jti === '') throw new AssertionRefusedError('The client assertion has no jti (RFC 7523 §3 item 7).');
    // claimed last, once everything else holds: a forged assertion spends nobody's jti. Kept until
    // the assertion could no longer be accepted anyway (its exp and the skew)
    const first = await deps.replayGuard.claim(
        { kind: 'client_assertion', realmId: subject.realmId, issuer: subject.clientId, jti: payload.jti },
        new Date((exp + CLOCK_SKEW_SECONDS) * 1000),
    );
    if (!first) throw new AssertionRefusedError('The client assertion was used before (RFC 7523 §3 item 7).');
}

/** A client-safe reason: jose's own message for a claim or signature failure, a key that could not be found named as such. */
function reasonOf(error: unknown): string {
    if (error instanceof errors.JWKSNoMatchingKey) return 'no registered key matches its header';
    if (error instanceof errors.JOSEError) return error.message;
    if (error instanceof Error && error.name === 'ClientKeysUnavailableError') return error.message;
    return 'its signature or claims are invalid';
}
