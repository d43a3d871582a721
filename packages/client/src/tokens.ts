import { basicAuth, type RealmgateClient } from './client.js';
import type { AuthorizationSource } from './route-types.js';
import type { Routes } from './generated/routes.js';

/** The token response (RFC 6749 §5.1), as the server's contract declares it. */
export type TokenSet = Routes['POST /token']['response'];

/** A client's credentials at the token endpoint: Basic with a secret, `client_id` in the body without one. */
export interface ClientCredentials {
    clientId: string;
    clientSecret?: string;
}

/** The realm of a grant (API.md §4: `realm_id` or `realm_name`, default master). */
export interface RealmSelector {
    realmId?: string;
    realmName?: string;
}

/**
 * The form and credential of a request at the token or device authorization endpoint: a public
 * client names itself in the body, a confidential one authenticates with Basic (RFC 6749 §2.3.1);
 * the realm is `realm_id` or `realm_name` (API.md §4).
 */
export function protocolRequest(parameters: Record<string, string | undefined>, credentials?: ClientCredentials, realm: RealmSelector = {}) {
    const body: Record<string, string> = {};
    for (const [name, value] of Object.entries(parameters)) if (value !== undefined) body[name] = value;
    if (realm.realmId) body.realm_id = realm.realmId;
    if (realm.realmName) body.realm_name = realm.realmName;
    if (credentials && credentials.clientSecret === undefined) body.client_id = credentials.clientId;
    const auth = credentials?.clientSecret === undefined ? null : basicAuth(credentials.clientId, credentials.clientSecret);
    return { body, form: true, auth };
}

/** POST /token with a grant's parameters (RFC 6749 §4). */
export async function requestToken(client: RealmgateClient, parameters: Record<string, string | undefined>, credentials?: ClientCredentials, realm: RealmSelector = {}): Promise<TokenSet> {
    return client.postToken(protocolRequest(parameters, credentials, realm));
}

/** Options of the renewing token sources. */
export interface RenewalOptions {
    /** renew this many seconds before expiry; default 30 */
    renewBeforeSeconds?: number;
    /** the clock (milliseconds), replaceable for tests */
    now?: () => number;
}

/** A cached access token, renewed before it expires; usable as a client's `auth`. */
export interface TokenSource extends AuthorizationSource {
    /** the current access token, renewed first when it is about to expire */
    accessToken(): Promise<string>;
    /** the last token response */
    current(): TokenSet | undefined;
    /** drop the cached token, so the next call asks for a new one */
    invalidate(): void;
}

function renewingSource(obtain: (previous: TokenSet | undefined) => Promise<TokenSet>, options: RenewalOptions, initial?: TokenSet, refreshable = false): TokenSource {
    const now = options.now ?? Date.now;
    const renewBefore = (options.renewBeforeSeconds ?? 30) * 1000;
    let token = initial;
    let expiresAt = initial ? now() + (initial.expires_in ?? Infinity) * 1000 : 0;
    let pending: Promise<TokenSet> | undefined;
    const fresh = () => token !== undefined && now() < expiresAt - renewBefore;
    // one renewal at a time: concurrent callers share it (a rotated refresh token is used once)
    const renew = () => pending ??= obtain(token).then((next) => {
        token = next;
        expiresAt = now() + (next.expires_in ?? Infinity) * 1000;
        return next;
    }).finally(() => {
        pending = undefined;
    });
    async function accessToken(): Promise<string> {
        if (fresh()) return token!.access_token;
        return (await renew()).access_token;
    }
    const source: TokenSource = {
        accessToken,
        authorization: async () => `Bearer ${await accessToken()}`,
        current: () => token,
        invalidate: () => {
            expiresAt = 0;
        },
    };
    if (refreshable) {
        source.refresh = async (rejected) => {
            // refused before its expiry (revoked, or a clock ahead of ours): renew now, unless a
            // concurrent call refused the same token and already did — one refresh for them all
            if (pending) await pending;
            else if (token && rejected === `Bearer ${token.access_token}`) await renew();
            return true;
        };
    }
    return source;
}

/**
 * The client_credentials grant (RFC 6749 §4.4) of a confidential client, cached and renewed before
 * expiry. A resource server uses one per credential for the catalog (spec consumer rule 12).
 */
export function clientCredentials(client: RealmgateClient, credentials: ClientCredentials & RealmSelector & { scope?: string }, options: RenewalOptions = {}): TokenSource {
    return renewingSource(() => requestToken(client, { grant_type: 'client_credentials', scope: credentials.scope }, credentials, credentials), options);
}

/** The password grant (RFC 6749 §4.3); without a client the token carries scope `global` (API.md §4). */
export function passwordGrant(client: RealmgateClient, input: { username: string; password: string; scope?: string } & RealmSelector, credentials?: ClientCredentials): Promise<TokenSet> {
    return requestToken(client, { grant_type: 'password', username: input.username, password: input.password, scope: input.scope }, credentials, input);
}

/** The refresh_token grant (RFC 6749 §6): the answer may carry a new refresh token (rotation). */
export function refreshTokens(client: RealmgateClient, refreshToken: string, credentials?: ClientCredentials): Promise<TokenSet> {
    return requestToken(client, { grant_type: 'refresh_token', refresh_token: refreshToken }, credentials);
}

/**
 * A session from a token response with a refresh token: the access token is renewed before expiry
 * with the refresh grant, and a rotated refresh token replaces the used one (the server revokes a
 * replayed refresh token's session, so the old one is never sent again). `onRotate` persists it.
 * As a client's `auth`, a 401 to its access token refreshes once and repeats the call once.
 */
export function refreshingSession(client: RealmgateClient, initial: TokenSet, options: RenewalOptions & { credentials?: ClientCredentials; onRotate?: (tokens: TokenSet) => void } = {}): TokenSource {
    let refreshToken = initial.refresh_token;
    return renewingSource(async () => {
        if (!refreshToken) throw new TypeError('the session holds no refresh token');
        const next = await refreshTokens(client, refreshToken, options.credentials);
        refreshToken = next.refresh_token ?? refreshToken;
        options.onRotate?.(next);
        return next;
    }, options, initial, initial.refresh_token !== undefined);
}
