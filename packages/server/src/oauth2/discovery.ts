import { DPOP_SIGNING_ALGORITHMS } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ACR, ID_TOKEN_ALGORITHM, ID_TOKEN_ES256 } from '../tokens/claims.js';
import { issuerOf } from '../tokens/issuer.js';
import { scopeNamesOfRealm } from '../storage/scopes.js';
import { findConsoleClientId } from '../storage/console-clients.js';
import { findRealmProtocolFlags } from '../storage/realms.js';
import { profileAdmitsAlgorithm, profileOf } from './security-profile.js';
import { supportedGrantTypes } from './grants/index.js';
import { CLIENT_SECRET_JWT_ALGORITHMS, PRIVATE_KEY_JWT_ALGORITHMS } from './client-auth/assertion.js';
import { REQUEST_OBJECT_ALGORITHMS } from './authorize/request-object.js';

/**
 * An OpenID Provider / RFC 8414 authorization server metadata document. Only what is implemented
 * is advertised: members for endpoints, grants or tokens that do not exist yet are absent.
 */
export interface DiscoveryDocument {
    issuer: string;
    authorization_endpoint: string;
    token_endpoint: string;
    userinfo_endpoint: string;
    end_session_endpoint: string;
    device_authorization_endpoint: string;
    jwks_uri: string;
    revocation_endpoint: string;
    introspection_endpoint: string;
    grant_types_supported: string[];
    token_endpoint_auth_methods_supported: string[];
    token_endpoint_auth_signing_alg_values_supported: string[];
    revocation_endpoint_auth_methods_supported: string[];
    revocation_endpoint_auth_signing_alg_values_supported: string[];
    introspection_endpoint_auth_methods_supported: string[];
    introspection_endpoint_auth_signing_alg_values_supported: string[];
    response_types_supported: string[];
    response_modes_supported: string[];
    code_challenge_methods_supported: string[];
    subject_types_supported: string[];
    id_token_signing_alg_values_supported: string[];
    scopes_supported: string[];
    claims_supported: string[];
    acr_values_supported: string[];
    /** OIDC Discovery §3: the languages of the sign-in pages (`ui_locales`, views/locale.ts) */
    ui_locales_supported: string[];
    backchannel_logout_supported: boolean;
    backchannel_logout_session_supported: boolean;
    authorization_response_iss_parameter_supported: boolean;
    /** RFC 9126 §5 */
    pushed_authorization_request_endpoint: string;
    require_pushed_authorization_requests: boolean;
    /** OIDC Discovery §3: request objects by value (oauth2/authorize/request-source.ts) */
    request_parameter_supported: boolean;
    request_object_signing_alg_values_supported: string[];
    request_uri_parameter_supported: false;
    /** RFC 9449 §5.1: the algorithms a DPoP proof may be signed with */
    dpop_signing_alg_values_supported: string[];
    /** RFC 8705 §5: present when MTLS_PUBLIC_URL is set */
    mtls_endpoint_aliases?: { token_endpoint: string; device_authorization_endpoint: string };
    /**
     * Realmgate's own member (RFC 8414 §2 allows additional metadata): the client_id of the realm's
     * `admin-console` public client, which the consoles sign in as for this realm's users; absent
     * when the realm has none (no PUBLIC_URL at its creation). Client ids are public (RFC 6749 §2.2).
     */
    realmgate_console_client_id?: string;
    /**
     * Realmgate's own member: whether the realm's users may register and sign in with passkeys
     * (API.md §8 `passkeysEnabled`), so the account console shows passkeys only where they work.
     */
    realmgate_passkeys_enabled: boolean;
    /** RFC 8414 §2 (RFC 7591 §3): present while the realm's dynamicRegistrationEnabled is true */
    registration_endpoint?: string;
}

/**
 * RFC 6749 §2.3.1 Basic and body credentials, and client assertions (RFC 7523 §2.2, OIDC Core §9);
 * the same authenticate at `/token/revoke` and `/token/introspect` (oauth2/client-auth/authenticate.ts).
 */
const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt'];
/** RFC 8414 §2: the algorithms of those assertions — asymmetric for private_key_jwt, HMAC for client_secret_jwt; never `none`. */
const CLIENT_AUTH_ALGORITHMS = [...PRIVATE_KEY_JWT_ALGORITHMS, ...CLIENT_SECRET_JWT_ALGORITHMS];
/** RFC 8414 §2 `none`: a public client names itself by client_id at the token endpoint (code + PKCE, RFC 7636). */
const TOKEN_AUTH_METHODS = [...CLIENT_AUTH_METHODS, 'none'];

/** The claims an ID token may carry besides those of an access token (oauth2/grants/contract.ts). */
const ID_TOKEN_CLAIMS = [
    'aud', 'azp', 'sid', 'auth_time', 'nonce', 'at_hash', 'acr',
    'preferred_username', 'name', 'nickname', 'given_name', 'family_name', 'updated_at', 'email', 'email_verified',
];

/** The claims of an access token (API.md §4, oauth2/tokens/claims.ts). */
const ACCESS_TOKEN_CLAIMS = ['iss', 'sub', 'sub_kind', 'kind', 'realm_id', 'realm_name', 'client_id', 'scope', 'session_id', 'jti', 'iat', 'exp', 'aud'];


/** The realm's discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2). */
export async function discoveryDocument(
    db: Kysely<Database>, publicUrl: string, realm: { id: string; name: string }, pages: { uiLocales: readonly string[] }, mtlsPublicUrl?: string,
): Promise<DiscoveryDocument> {
    const base = publicUrl.replace(/\/+$/, '');
    // the realm's protocol switches (API.md §8): discovery advertises only what the realm has on
    const [scopes, consoleClientId, flags] = await Promise.all([scopeNamesOfRealm(db, realm.id), findConsoleClientId(db, realm.id), findRealmProtocolFlags(db, realm.id)]);
    const profile = profileOf(flags ?? { securityProfile: null, requirePushedAuthorizationRequests: false });
    // RFC 8705 §5: the endpoints a client reaches through the mutual-TLS listener; the token and
    // device authorization endpoints are the ones a client authenticates at (spec Events 7)
    const mtls = mtlsPublicUrl === undefined ? undefined : mtlsPublicUrl.replace(/\/+$/, '');
    // a realm's security profile narrows what it accepts to what the profile allows (FAPI 2.0
    // §5.3.2.1, §5.4.1): only that is advertised
    const admitted = (algorithms: readonly string[]) => algorithms.filter((algorithm) => profileAdmitsAlgorithm(profile, algorithm));
    const methods = (list: readonly string[]) => (profile.clientAuthenticationMethods === null ? [...list] : list.filter((method) => profile.clientAuthenticationMethods!.includes(method)));
    return {
        ...(mtls !== undefined ? { mtls_endpoint_aliases: { token_endpoint: `${mtls}/token`, device_authorization_endpoint: `${mtls}/device_authorization` } } : {}),
        issuer: issuerOf(publicUrl, realm.name),
        // the protocol routes sit at the root for every realm; the realm follows from the client
        // (authorization, token) or the token (userinfo, logout) (OIDC Discovery 1.0 §3)
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        // OpenID Connect Core §5.3
        userinfo_endpoint: `${base}/userinfo`,
        // OpenID Connect RP-Initiated Logout 1.0 §2.1
        end_session_endpoint: `${base}/logout`,
        device_authorization_endpoint: `${base}/device_authorization`, // RFC 8628 §4
        jwks_uri: `${base}/realms/${encodeURIComponent(realm.name)}/jwks`,
        revocation_endpoint: `${base}/token/revoke`,
        // the grants `POST /token` handles, from the registry itself (oauth2/grants/index.ts)
        grant_types_supported: supportedGrantTypes(),
        token_endpoint_auth_methods_supported: methods(TOKEN_AUTH_METHODS),
        token_endpoint_auth_signing_alg_values_supported: admitted(CLIENT_AUTH_ALGORITHMS),
        revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
        revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_AUTH_ALGORITHMS],
        // RFC 8414 §2 (RFC 7662 §2)
        introspection_endpoint: `${base}/token/introspect`,
        introspection_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
        introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_AUTH_ALGORITHMS],
        // the authorization code flow only (OpenID Connect Core §3.1; no implicit or hybrid flow)
        response_types_supported: ['code'],
        // OAuth 2.0 Multiple Response Type Encoding Practices §2.1 and Form Post Response Mode
        response_modes_supported: ['query', 'form_post'],
        // RFC 7636 §4.2: S256 only, `plain` is refused (RFC 9700 §2.1.1)
        code_challenge_methods_supported: ['S256'],
        // OIDC Discovery §3 (REQUIRED): `sub` is the subject's id, the same for every client
        subject_types_supported: ['public'],
        scopes_supported: [...new Set(scopes)],
        // OIDC Discovery §3 (REQUIRED): RS256 by default (Core §15.1), ES256 for a client that
        // registered it as its id_token_signed_response_alg (tokens/claims.ts idTokenAlgorithmOf)
        id_token_signing_alg_values_supported: profile.idTokenAlgorithm !== null ? [profile.idTokenAlgorithm] : [ID_TOKEN_ALGORITHM, ID_TOKEN_ES256],
        claims_supported: [...new Set([...ACCESS_TOKEN_CLAIMS, ...ID_TOKEN_CLAIMS])],
        // OIDC Discovery §3: the values an ID token's `acr` takes when acr_values is sent (tokens/claims.ts ACR)
        acr_values_supported: Object.values(ACR),
        // OIDC Discovery §3: the languages the auth pages are rendered in (the auth console's, passed by the route)
        ui_locales_supported: [...pages.uiLocales],
        // OpenID Connect Back-Channel Logout 1.0 §2.1: logout tokens carry `sid`
        backchannel_logout_supported: true,
        backchannel_logout_session_supported: true,
        // RFC 9207 §3: the authorization response carries `iss`
        authorization_response_iss_parameter_supported: true,
        // RFC 9126 §5: the realm's own requirement (the realm switch or its FAPI 2.0 profile); a
        // client's own requirement is its registration's (require_pushed_authorization_requests)
        pushed_authorization_request_endpoint: `${base}/par`,
        require_pushed_authorization_requests: profile.requirePushedRequests,
        // OIDC Discovery §3 (the defaults are false and true): request objects by value, signed
        // with the client's asymmetric keys (RFC 9101; oauth2/authorize/request-object.ts). `request_uri` is accepted only as a reference
        // this server handed out at the pushed authorization request endpoint (RFC 9126 §4); the
        // member speaks of references the provider fetches from the client (OIDC Core §6.2), which
        // are never fetched (request_uri_not_supported), so it stays false
        request_parameter_supported: true,
        request_object_signing_alg_values_supported: admitted(REQUEST_OBJECT_ALGORITHMS),
        request_uri_parameter_supported: false,
        // RFC 9449 §5.1: asymmetric algorithms only (authn/dpop-proof.ts)
        dpop_signing_alg_values_supported: admitted(DPOP_SIGNING_ALGORITHMS),
        ...(consoleClientId !== null ? { realmgate_console_client_id: consoleClientId } : {}),
        realmgate_passkeys_enabled: flags?.passkeysEnabled ?? false,
        // the path of http/routes/client-registration.ts
        ...(flags?.dynamicRegistrationEnabled === true ? { registration_endpoint: `${base}/realms/${encodeURIComponent(realm.name)}/register-client` } : {}),
    };
}
