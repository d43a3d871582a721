import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbBool } from '../db/values.js';

/** A client as the authorization and logout endpoints see it, with its realm. */
export interface AuthorizationClient {
    id: string;
    name: string;
    displayName: string | null;
    active: boolean;
    /** null: a public client (created without a secret), which must use PKCE */
    hasSecret: boolean;
    /** space-separated exact URIs; null: none registered */
    redirectUri: string | null;
    postLogoutRedirectUri: string | null;
    grantTypes: string | null;
    accessPolicyId: string | null;
    firstParty: boolean;
    /** RFC 9126 §6 require_pushed_authorization_requests, the client's own (its realm may require it too) */
    requirePushedAuthorizationRequests: boolean;
    /** RFC 9101 §10.5 require_signed_request_object */
    requiresSignedRequestObject: boolean;
    /** the client's public keys (a JWK Set as JSON text, or its URL) for its request objects (RFC 9101 §6.2) */
    jwks: string | null;
    jwksUri: string | null;
    realm: PageRealmRow & { securityProfile: string | null; requirePushedAuthorizationRequests: boolean };
}

/** A realm as its pages show it: the names, and the branding of its sign-in pages (migration 0025). */
export interface PageRealmRow {
    id: string;
    name: string;
    displayName: string | null;
    logoUrl: string | null;
    primaryColor: string | null;
}

export async function findAuthorizationClient(db: Kysely<Database>, clientId: string): Promise<AuthorizationClient | undefined> {
    const row = await db.selectFrom('auth_clients')
        .innerJoin('auth_realms', 'auth_realms.id', 'auth_clients.realm_id')
        .select([
            'auth_clients.id', 'auth_clients.name', 'auth_clients.display_name', 'auth_clients.active', 'auth_clients.secret',
            'auth_clients.redirect_uri', 'auth_clients.post_logout_redirect_uri', 'auth_clients.grant_types',
            'auth_clients.access_policy_id', 'auth_clients.first_party',
            'auth_clients.require_pushed_authorization_requests', 'auth_clients.require_signed_request_object', 'auth_clients.jwks', 'auth_clients.jwks_uri',
            'auth_realms.require_pushed_authorization_requests as realm_requires_pushed', 'auth_realms.security_profile',
            'auth_realms.id as realm_id', 'auth_realms.name as realm_name', 'auth_realms.display_name as realm_display_name',
            'auth_realms.logo_url as realm_logo_url', 'auth_realms.primary_color as realm_primary_color',
        ])
        .where('auth_clients.id', '=', clientId)
        .executeTakeFirst();
    if (!row) return undefined;
    return {
        id: row.id, name: row.name, displayName: row.display_name, active: fromDbBool(row.active), hasSecret: row.secret !== null,
        redirectUri: row.redirect_uri, postLogoutRedirectUri: row.post_logout_redirect_uri, grantTypes: row.grant_types,
        accessPolicyId: row.access_policy_id, firstParty: fromDbBool(row.first_party),
        requirePushedAuthorizationRequests: fromDbBool(row.require_pushed_authorization_requests),
        requiresSignedRequestObject: fromDbBool(row.require_signed_request_object), jwks: row.jwks, jwksUri: row.jwks_uri,
        realm: {
            id: row.realm_id, name: row.realm_name, displayName: row.realm_display_name, logoUrl: row.realm_logo_url, primaryColor: row.realm_primary_color,
            securityProfile: row.security_profile, requirePushedAuthorizationRequests: fromDbBool(row.realm_requires_pushed),
        },
    };
}

/** The realm of a page when no client names it (the logout pages of a session). */
export async function findPageRealm(db: Kysely<Database>, realmId: string): Promise<PageRealmRow | undefined> {
    const row = await db.selectFrom('auth_realms').select(['id', 'name', 'display_name', 'logo_url', 'primary_color']).where('id', '=', realmId).executeTakeFirst();
    return row && { id: row.id, name: row.name, displayName: row.display_name, logoUrl: row.logo_url, primaryColor: row.primary_color };
}

/** A user signing in with the form: name and password hash (null: none set), active mark. */
export interface SignInUser {
    id: string;
    name: string;
    active: boolean;
    password: string | null;
}

/**
 * The user the sign-in form names in a realm (username or email): by name first,
 * else by email when exactly one user of the realm has it (an address shared by several names no one).
 */
export async function findSignInUser(db: Kysely<Database>, realmId: string, login: string): Promise<SignInUser | undefined> {
    if (login.includes('\u0000')) return undefined;
    const columns = ['id', 'name', 'active', 'password'] as const;
    const byName = await db.selectFrom('auth_users').select(columns).where('realm_id', '=', realmId).where('name', '=', login).executeTakeFirst();
    const rows = byName ? [byName] : login.includes('@') ?
        await db.selectFrom('auth_users').select(columns).where('realm_id', '=', realmId).where('email', '=', login).limit(2).execute() :
        [];
    if (rows.length !== 1) return undefined;
    const row = rows[0]!;
    return { id: row.id, name: row.name, active: fromDbBool(row.active), password: row.password };
}

/** The user a pending sign-in names (the second-factor page): by id, in its realm. */
export async function findSignInUserById(db: Kysely<Database>, realmId: string, id: string): Promise<SignInUser | undefined> {
    const row = await db.selectFrom('auth_users').select(['id', 'name', 'active', 'password']).where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
    return row && { id: row.id, name: row.name, active: fromDbBool(row.active), password: row.password };
}
