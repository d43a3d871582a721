import type { DbDate, Timestamps } from './columns.js';

/*
 * What tokens and sign-ins leave behind: signing keys, sessions and their refresh tokens,
 * authorization and device codes, consents, single-use identifiers, registration and pushed requests.
 */

export interface KeyTable extends Timestamps {
    id: string;
    type: string;
    use: string;
    algorithm: string;
    status: string;
    priority: number;
    public_key: string | null;
    /** encrypted or wrapped private material; never returned */
    private_key: string | null;
    realm_id: string;
}

/** The public half of a deleted signing key (migration 0002): its tokens are inactive, not forged. */
export interface KeyTombstoneTable {
    id: string;
    algorithm: string;
    public_key: string;
    realm_id: string;
    deleted_at: DbDate;
}

export interface SessionTable extends Timestamps {
    id: string;
    sub: string;
    sub_kind: string;
    user_id: string | null;
    client_id: string | null;
    realm_id: string;
    ip_address: string | null;
    user_agent: string | null;
    seen_at: DbDate | null;
    expires_at: DbDate;
    revoked_at: DbDate | null;
    /** the browser session this application session was signed in through (migration 0003) */
    parent_id: string | null;
    /** SHA-256 hex of the console session cookie's secret; null for sessions without a cookie */
    cookie_digest: string | null;
    /** a browser session's authentication strength (tokens/claims.ts ACR, migration 0017); null: unknown */
    acr: string | null;
}

/** An authorization code (spec Authentication 12), stored only as its SHA-256 digest (migration 0003). */
export interface AuthorizationCodeTable {
    id: string;
    code_digest: string;
    realm_id: string;
    client_id: string;
    user_id: string;
    /** the session the user signed in with: a code dies with it */
    session_id: string;
    redirect_uri: string;
    scope: string;
    nonce: string | null;
    code_challenge: string | null;
    code_challenge_method: string | null;
    auth_time: DbDate;
    expires_at: DbDate;
    used_at: DbDate | null;
    /** the session the first redemption created; revoked when the code is presented again */
    issued_session_id: string | null;
    /** the `acr` its ID token states: null unless the request sent `acr_values` (migration 0017) */
    acr: string | null;
    /** the resource indicator the authorization request named (RFC 8707 §2; migration 0022), null when none */
    resource: string | null;
    /** RFC 9449 §10: the DPoP key thumbprint the authorization request bound the code to (migration 0026), null when none */
    dpop_jkt: string | null;
    created_at: DbDate;
}

/** A device authorization request (RFC 8628, migration 0004): both codes stored only as SHA-256 digests. */
export interface DeviceCodeTable {
    id: string;
    device_code_digest: string;
    /** of the normalised user code (upper case, no dash) */
    user_code_digest: string;
    realm_id: string;
    client_id: string;
    scope: string;
    status: 'pending' | 'approved' | 'denied';
    /** who decided, and the session they decided in (null for Basic) */
    user_id: string | null;
    session_id: string | null;
    /** seconds between polls (RFC 8628 §3.5: grows by 5 at each slow_down) */
    poll_interval: number;
    polled_at: DbDate | null;
    expires_at: DbDate;
    consumed_at: DbDate | null;
    created_at: DbDate;
}

/** Scopes a user granted a client (migration 0003), space-delimited. */
export interface UserConsentTable extends Timestamps {
    id: string;
    user_id: string;
    client_id: string;
    scopes: string;
    realm_id: string;
}

export interface SessionTokenTable {
    /** a refresh token chain's row: the jti of its first token, kept through every rotation */
    id: string;
    kind: string;
    session_id: string;
    /** the jti of the chain's usable token (migration 0027); null on a row written before it, whose id is that jti */
    jti: string | null;
    expires_at: DbDate;
    created_at: DbDate;
}

/** A single-use identifier seen (client assertion jti, DPoP proof jti), kept until it expires (migration 0018). */
export interface ReplayGuardTable {
    /** SHA-256 hex of the identifier's kind, realm, issuer and value */
    id: string;
    expires_at: DbDate;
}

/** An initial access token of dynamic registration (migration 0021, RFC 7591 §1.2): its digest, uses and expiry. */
export interface InitialAccessTokenTable extends Timestamps {
    id: string;
    realm_id: string;
    /** SHA-256 hex of the token; the token itself is answered once at creation */
    token_digest: string;
    uses_allowed: number;
    uses_remaining: number;
    expires_at: DbDate;
}

/** A dynamically registered client's registration access token (migration 0021, RFC 7592 §1.1), as its digest. */
export interface ClientRegistrationTable extends Timestamps {
    client_id: string;
    realm_id: string;
    token_digest: string;
}

/** RFC 9126: a pushed authorization request until it is redeemed or expires (migration 0020). */
export interface PushedRequestTable {
    /** SHA-256 hex of the request_uri */
    id: string;
    realm_id: string;
    client_id: string;
    /** JSON: the validated authorization parameters and whether a signed request object carried them */
    parameters: string;
    expires_at: DbDate;
}
