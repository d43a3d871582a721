import * as client from 'openid-client';
import type { ProviderRow } from '../storage/identity-providers.js';
import { DEFAULT_UPSTREAM_TIMEOUT } from './ldap.js';
import { isLoopbackHost } from '../outbound/address-policy.js';
import type { OutboundFetch } from '../outbound/guarded-fetch.js';
import { upstreamClientAuth, type AssertionKeySource } from './upstream-client-auth.js';
import { UpstreamUnavailableError, type UpstreamIdentity } from './upstream-identity.js';

/*
 * The relying party of an upstream OpenID Connect or OAuth 2.0 provider (OpenID Connect / OAuth 2.0 login with PKCE, state and nonce), with
 * openid-client: authorization code with PKCE S256 (RFC 7636), `state` (RFC 6749 §10.12) and, for
 * OpenID Connect, `nonce` and a verified ID token (OIDC Core §3.1.3.7). An upstream refusing, a
 * tampered ID token, a wrong state or issuer throw; the caller shows a sign-in error.
 */

/** Discovery documents are fetched once per provider version and kept this long. */
const DISCOVERY_TTL_MS = 5 * 60_000;
const discovered = new Map<string, { at: number; version: string; config: client.Configuration }>();

/** http:// upstreams only on loopback (a development provider); anything else must be https (OIDC Core §3.1.2.1). */
const loopback = (url: string): boolean => isLoopbackHost(new URL(url).hostname);

/**
 * Plain http is allowed only when every endpoint that uses it is on loopback: one loopback
 * authorization URL must not let the token and userinfo requests (which carry the code, the client
 * secret and the access token) go in the clear to another host (OIDC Core §3.1.2.1, RFC 6749 §3.2).
 */
function insecureAllowed(endpoints: string[]): boolean {
    const plain = endpoints.filter((endpoint) => endpoint.startsWith('http:'));
    if (plain.some((endpoint) => !loopback(endpoint))) throw new Error('An identity provider endpoint uses plain http off loopback; https is required.');
    return plain.length > 0;
}

/** What authenticates Realmgate at the upstream's token endpoint: the opened secret, and the realm's signing key for private_key_jwt. */
export interface UpstreamCredentials {
    clientSecret: string | null;
    assertionKey: AssertionKeySource;
}

async function configurationOf(provider: ProviderRow, credentials: UpstreamCredentials, fetch: OutboundFetch): Promise<client.Configuration> {
    // a saved provider (new issuer, client or secret) has a new updated_at: its configuration is rebuilt
    const version = String(provider.updated_at);
    const cached = discovered.get(provider.id);
    if (cached && cached.at > Date.now() - DISCOVERY_TTL_MS && version === cached.version) return cached.config;
    // the method is chosen per request from the upstream's metadata (upstream-client-auth.ts)
    const auth = upstreamClientAuth(provider, credentials.clientSecret, credentials.assertionKey);
    const timeout = (provider.timeout ?? DEFAULT_UPSTREAM_TIMEOUT) / 1000;
    const insecure = insecureAllowed(provider.protocol === 'oidc' ? [provider.issuer!] : [provider.authorization_url!, provider.token_url!, provider.userinfo_url!]);
    // every upstream request (discovery, JWKS, token, userinfo) goes through the outbound policy
    // after DNS resolution, so an upstream cannot lead the server into its own network
    const customFetch = fetch as client.CustomFetch;
    let config: client.Configuration;
    if (provider.protocol === 'oidc') {
        config = await client.discovery(new URL(provider.issuer!), provider.client_id!, undefined, auth, {
            timeout, [client.customFetch]: customFetch, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        });
        config[client.customFetch] = customFetch;
        // OIDC Core §3.1.3.7 item 6 lets a client skip the ID token's signature over TLS; it is
        // always verified here (against the upstream's JWKS), so a tampered token never signs in
        client.enableNonRepudiationChecks(config);
    } else {
        // OAuth 2.0 has no discovery the provider must offer: the three endpoints are configured
        config = new client.Configuration({
            issuer: new URL(provider.authorization_url!).origin,
            authorization_endpoint: provider.authorization_url!,
            token_endpoint: provider.token_url!,
            userinfo_endpoint: provider.userinfo_url!,
        }, provider.client_id!, undefined, auth);
        config.timeout = timeout;
        config[client.customFetch] = customFetch;
        if (insecure) client.allowInsecureRequests(config);
    }
    discovered.set(provider.id, { at: Date.now(), version, config });
    return config;
}

export interface RoundTripChecks {
    state: string;
    nonce: string;
    codeVerifier: string;
}

/** New random state, nonce and PKCE verifier of one round trip. */
export function newChecks(): RoundTripChecks {
    return { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
}

function defaultScope(provider: ProviderRow): string {
    return provider.scope ?? (provider.protocol === 'oidc' ? 'openid profile email' : '');
}

/** The upstream authorization request the browser is sent to. */
export async function upstreamAuthorizationUrl(provider: ProviderRow, credentials: UpstreamCredentials, redirectUri: string, checks: RoundTripChecks, fetch: OutboundFetch): Promise<URL> {
    let config: client.Configuration;
    try {
        config = await configurationOf(provider, credentials, fetch);
    } catch (error) {
        throw new UpstreamUnavailableError(`The identity provider ${provider.name} could not be reached: ${(error as Error).message}`);
    }
    const scope = defaultScope(provider);
    return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        response_type: 'code',
        ...(scope ? { scope } : {}),
        state: checks.state,
        ...(provider.protocol === 'oidc' ? { nonce: checks.nonce } : {}),
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
    });
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null);

/**
 * The callback (RFC 6749 §4.1.2): the code is redeemed with the PKCE verifier; the state must be
 * the one sent; OpenID Connect must return an ID token whose signature, issuer, audience, expiry and
 * nonce verify (openid-client, OIDC Core §3.1.3.7). The subject is the ID token's `sub`, or for
 * OAuth 2.0 the userinfo `sub` or `id`. Anything wrong throws.
 */
export async function completeUpstreamLogin(provider: ProviderRow, credentials: UpstreamCredentials, callbackUrl: URL, checks: RoundTripChecks, fetch: OutboundFetch): Promise<UpstreamIdentity> {
    const config = await configurationOf(provider, credentials, fetch);
    const oidc = provider.protocol === 'oidc';
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, ...(oidc ? { expectedNonce: checks.nonce } : {}), idTokenExpected: oidc,
    });
    let claims: Record<string, unknown> = {};
    let subject: string | null = null;
    if (oidc) {
        const idToken = tokens.claims()!;
        subject = idToken.sub;
        claims = { ...idToken };
        if (config.serverMetadata().userinfo_endpoint) {
            // OIDC Core §5.3.2: the userinfo sub must be the ID token's
            claims = { ...await client.fetchUserInfo(config, tokens.access_token, idToken.sub), ...claims };
        }
    } else {
        claims = { ...await client.fetchUserInfo(config, tokens.access_token, client.skipSubjectCheck) };
        subject = text(claims.sub) ?? text(claims.id);
    }
    if (!subject) throw new Error('The identity provider named no subject.');
    const email = text(claims.email);
    return {
        subject,
        username: text(claims.preferred_username) ?? text(claims.login) ?? null,
        email,
        // OIDC Core §5.1: only an explicit email_verified true says the address was verified
        emailVerified: claims.email_verified === true,
        claims,
        groups: [],
    };
}
