import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ID_TOKEN_ALGORITHM } from '../tokens/claims.js';
import { issuerOf } from '../tokens/issuer.js';
import { scopeNamesOfRealm } from '../storage/scopes.js';
import { supportedGrantTypes } from './grants/index.js';

/**
 * An OpenID Provider / RFC 8414 authorization server metadata document. Only what is implemented
 * is advertised: members for endpoints, grants or tokens that do not exist yet are absent.
 */
export interface DiscoveryDocument {
    issuer: string;
    token_endpoint: string;
    device_authorization_endpoint: string;
    jwks_uri: string;
    revocation_endpoint: string;
    introspection_endpoint: string;
    grant_types_supported: string[];
    token_endpoint_auth_methods_supported: string[];
    revocation_endpoint_auth_methods_supported: string[];
    introspection_endpoint_auth_methods_supported: string[];
    response_types_supported: string[];
    subject_types_supported: string[];
    id_token_signing_alg_values_supported: string[];
    scopes_supported: string[];
    claims_supported: string[];
}

/** RFC 6749 §2.3.1 Basic and body credentials; the same two authenticate at `/token/revoke` and `/token/introspect`. */
const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/** The claims an ID token may carry besides those of an access token (oauth2/grants/contract.ts). */
const ID_TOKEN_CLAIMS = [
    'aud', 'azp', 'sid', 'auth_time', 'preferred_username', 'nickname', 'given_name', 'family_name', 'updated_at', 'email', 'email_verified',
];

/** The claims of an access token (API.md §4, oauth2/tokens/claims.ts). */
const ACCESS_TOKEN_CLAIMS = ['iss', 'sub', 'sub_kind', 'kind', 'realm_id', 'realm_name', 'client_id', 'scope', 'session_id', 'jti', 'iat', 'exp'];


/** The realm's discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2). */
export async function discoveryDocument(db: Kysely<Database>, publicUrl: string, realm: { id: string; name: string }): Promise<DiscoveryDocument> {
    const base = publicUrl.replace(/\/+$/, '');
    const scopes = await scopeNamesOfRealm(db, realm.id);
    return {
        issuer: issuerOf(publicUrl, realm.name),
        token_endpoint: `${base}/token`,
        device_authorization_endpoint: `${base}/device_authorization`, // RFC 8628 §4
        jwks_uri: `${base}/realms/${encodeURIComponent(realm.name)}/jwks`,
        revocation_endpoint: `${base}/token/revoke`,
        // the grants `POST /token` handles, from the registry itself (oauth2/grants/index.ts)
        grant_types_supported: supportedGrantTypes(),
        token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
        revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
        // RFC 8414 §2 (RFC 7662 §2)
        introspection_endpoint: `${base}/token/introspect`,
        introspection_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
        // OIDC Discovery §3 makes this member REQUIRED, yet there is no authorization endpoint yet,
        // so no response type is supported: the empty list is the true answer (RFC 8414 §2 alike)
        response_types_supported: [],
        // OIDC Discovery §3 (REQUIRED): `sub` is the subject's id, the same for every client
        subject_types_supported: ['public'],
        scopes_supported: [...new Set(scopes)],
        // OIDC Discovery §3 (REQUIRED): ID tokens are signed RS256 (oauth2/tokens/service.ts)
        id_token_signing_alg_values_supported: [ID_TOKEN_ALGORITHM],
        claims_supported: [...new Set([...ACCESS_TOKEN_CLAIMS, ...ID_TOKEN_CLAIMS])],
    };
}
