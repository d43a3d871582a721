import { profileOf } from '../security-profile.js';
import type { OutboundPolicy } from '../../outbound/address-policy.js';
import type { ScopeBindings } from './scope.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import type { PasswordHasher } from '../../secrets/passwords.js';
import type { TicketFactorDeps } from '../../authn/ticket-factor.js';
import type { RequestClient } from '../client-auth/authenticate.js';
import { hasScope, type TokenSubject } from '../../tokens/claims.js';
import type { IssuedTokens } from '../../tokens/issuing.js';
import type { TokenService } from '../../tokens/service.js';
import { claimsOfProfile, releasedClaims, userClaims } from '../../tokens/user-claims.js';
import type { UserProfile } from '../../storage/users.js';
import type { SessionStore } from '../../tokens/sessions.js';
import { recordIssuance, type SignInMethod } from '../../tokens/auth-events.js';
import type { DetachedEventLog } from '../../storage/events.js';
import type { CatalogCache } from '../../authz/catalog-cache.js';

const REFRESH_GRANT_TYPE = 'refresh_token';

const OPENID_SCOPE = 'openid';

/** RFC 6749 §5.1 successful response. */
export interface TokenResponse {
    access_token: string;
    /** `DPoP` for a token bound to the request's DPoP key (RFC 9449 §5) */
    token_type: 'Bearer' | 'DPoP';
    expires_in: number;
    refresh_token?: string;
    scope: string;
    /** OpenID Connect Core §3.1.3.3, when the scope holds `openid` */
    id_token?: string;
    /** RFC 8693 §2.2.1: the type of the token a token exchange issued */
    issued_token_type?: string;
}

/** A token request as the grants see it: transport-free, parameters single-valued (RFC 6749 §3.2). */
export interface GrantRequest {
    db: Kysely<Database>;
    /** the `grant_type` being run (the event log's tokenIssued entry, spec Events 1) */
    grantType: string;
    realm: { id: string; name: string; securityProfile?: string | null | undefined; defaultAudience?: string | null | undefined };
    client: RequestClient | null;
    params: Readonly<Record<string, string>>;
    ipAddress: string | null;
    userAgent: string | null;
    /** the thumbprint of the key the request's DPoP proof holds (RFC 9449 §5): the tokens are bound to it; null without a proof */
    dpopJkt: string | null;
}

/**
 * The keys the tokens of a request are bound to (RFC 9449 §5): the access token to the proof's
 * key; a refresh token to it as well when no client authenticated (a public client, or none),
 * since nothing else stops a stolen refresh token — a confidential client's is bound to its
 * authentication instead.
 */
export function senderConstraintOf(request: GrantRequest): { accessJkt: string | null; refreshJkt: string | null } {
    return { accessJkt: request.dpopJkt, refreshJkt: request.client?.authenticated ? null : request.dpopJkt };
}

/** RFC 9068 §2.2: the realm's default audience, the `aud` of an access token the request narrows to no resource. */
export function realmAudienceOf(request: GrantRequest): { defaultAudience: string | null } {
    return { defaultAudience: request.realm.defaultAudience ?? null };
}

export interface GrantDeps {
    /** the database dialect: timestamps a grant writes itself (a code's used_at, a device code's poll) */
    dialect: DialectName;
    tokens: TokenService;
    sessions: SessionStore;
    passwords: PasswordHasher;
    /** the hosts an LDAP directory may be reached at (the password grant's directory login) */
    outbound: OutboundPolicy;
    /** the multi-factor core's dependencies (the password grant's mfa_token and its redemption) */
    secondFactor: TicketFactorDeps;
    /** a client's scope bindings, remembered (oauth2/grants/scope.ts) */
    scopeBindings: ScopeBindings;
    /** the event log's issuance entries, batched and never awaited (a token answer waits on no event write) */
    events: DetachedEventLog;
    /** the authorization engine's catalog: grants that ask it whether the client holds a permission (token exchange) */
    catalog: CatalogCache;
}

/** A parameter of a grant's token request, beside `grant_type` and the client and realm parameters. */
export interface GrantParameter {
    readonly name: string;
    /** the request must carry it (an empty value is the grant's to judge) */
    readonly required: boolean;
}

/**
 * How a grant relates to client authentication (RFC 6749 §2.3, §3.2.1): `required` — only a
 * confidential client that proved its secret may use it (client_credentials, §4.4); `optional` —
 * a confidential, public or absent client alike (password §4.3, refresh §6); `none` — the grant
 * never involves a client, so client credentials are not looked at.
 */
export type ClientAuthentication = 'none' | 'optional' | 'required';

/** What a grant declares of itself: the token endpoint's steps and discovery read it. */
export interface GrantDefinition {
    /** the `grant_type` value it answers */
    readonly type: string;
    readonly parameters: readonly GrantParameter[];
    readonly clientAuthentication: ClientAuthentication;
}

/** What a grant does, once constructed with its dependencies. */
export interface GrantBehaviour {
    /** the realm id a request means when it names none (the refresh grant: the token's own) */
    realmHint?(params: Readonly<Record<string, string>>): string | undefined;
    /** runs once the endpoint's steps established the realm, the client and the declared parameters */
    handle(request: GrantRequest): Promise<TokenResponse>;
}

/** One grant type (DESIGN.md §3: one file per grant behind this contract, listed in grants/index.ts). */
export interface Grant extends GrantDefinition {
    create(deps: GrantDeps): GrantBehaviour;
}

/** A grant ready to run at the token endpoint: its definition and its behaviour. */
export interface GrantHandler extends GrantDefinition, GrantBehaviour {}

/** A new session for a login (created_at = authentication time) and its first tokens. */
export async function issueForLogin(
    deps: GrantDeps,
    request: GrantRequest,
    subject: TokenSubject,
    scope: string,
    refresh: boolean,
    /** RFC 8707 §2: the resource server the access token is narrowed to; none: any of the realm */
    audience: string | null = null,
): Promise<TokenResponse> {
    const { accessMaxAge, refreshMaxAge } = deps.tokens.settings;
    const clientId = request.client?.row.id ?? null;
    const sessionId = await deps.sessions.create(request.db, {
        subject, clientId, ipAddress: request.ipAddress, userAgent: request.userAgent,
        expiresAt: new Date(Date.now() + 1000 * (refresh ? Math.max(refreshMaxAge, accessMaxAge) : accessMaxAge)),
    });
    const issued = await deps.tokens.issue(request.db, { subject, clientId, scope, sessionId, refresh, audience, ...realmAudienceOf(request), ...senderConstraintOf(request) });
    // a login is a sign-in with a secret: a user's password (and second factor), a client's secret
    return tokenResponse(deps, request, { subject, clientId, scope, sessionId, authTime: new Date() }, issued, subject.kind === 'user' ? 'password' : 'client');
}

/** What an ID token states of the grant (OpenID Connect Core §2). */
export interface IssuedGrant {
    subject: TokenSubject;
    clientId: string | null;
    scope: string;
    sessionId: string;
    authTime: Date;
    /** the authorization request's nonce (code redemption only; Core §12.2: not on a refresh) */
    nonce?: string | null;
    /** the `acr` to state (code redemption only, when the request sent acr_values: Core §3.1.2.1) */
    acr?: string | null;
    /** the user's profile when the grant read it already (a code's redemption); else the ID token's claims are read */
    profile?: UserProfile | null;
    /**
     * false: no ID token whatever the scope — a token exchange states no authentication of the
     * user to the client (RFC 8693 §2.2.1 answers the issued token and its type only)
     */
    idToken?: boolean;
}

/**
 * RFC 6749 §5.1 from what was issued, plus an ID token (OpenID Connect Core §3.1.3.3) when the
 * granted scope holds `openid`, the subject is a user and a client receives it — the ID token's
 * audience. Profile claims are released by scope (tokens/user-claims.ts releasedClaims); the ID
 * token binds the access token by `at_hash` (Core §3.1.3.6).
 */
export async function tokenResponse(deps: GrantDeps, request: GrantRequest, grant: IssuedGrant, issued: IssuedTokens, signIn: SignInMethod | null = null): Promise<TokenResponse> {
    recordIssuance(deps.events, {
        grantType: request.grantType, subject: grant.subject, clientId: grant.clientId, sessionId: grant.sessionId,
        // every grant but a refresh opens a session (issueForLogin, a code's or a device code's redemption)
        newSession: request.grantType !== REFRESH_GRANT_TYPE,
        signIn,
        request: { ip: request.ipAddress, method: 'POST', path: '/token' },
    });
    const response: TokenResponse = {
        access_token: issued.accessToken,
        token_type: issued.tokenType,
        expires_in: issued.expiresIn,
        ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
        scope: grant.scope,
    };
    if (grant.idToken === false || !hasScope(grant.scope, OPENID_SCOPE) || grant.subject.kind !== 'user' || grant.clientId === null) return response;
    const claims = grant.profile !== undefined ? (grant.profile ? claimsOfProfile(grant.profile) : undefined) : await userClaims(request.db, grant.subject.id);
    response.id_token = await deps.tokens.issueIdToken(request.db, {
        subject: grant.subject,
        clientId: grant.clientId,
        sessionId: grant.sessionId,
        authTime: grant.authTime,
        claims: { ...releasedClaims(grant.scope, claims) },
        nonce: grant.nonce ?? null,
        acr: grant.acr ?? null,
        accessToken: issued.accessToken,
        // every grant that issues an ID token has the audience as its request's client (RFC 6749 §6: a refresh too);
        // a realm's security profile signs with its own algorithm (FAPI 2.0 §5.4.1: not RS256)
        algorithm: profileOf(request.realm).idTokenAlgorithm ?? (request.client?.row.id === grant.clientId ? request.client.row.idTokenAlgorithm : null),
    });
    return response;
}
