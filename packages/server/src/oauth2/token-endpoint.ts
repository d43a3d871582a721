import { ErrorCode, MASTER_REALM, isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findRealmById, findRealmByName, findRealmOfClient, findRealmOfUser } from '../storage/realms.js';
import { decodeBasicRfc6749, isBasicScheme } from '../authn/basic-credentials.js';
import { authenticateClient, clientAllowsGrant, type ClientAuthDeps } from './client-auth/authenticate.js';
import { invalidRequest, oauthError } from './errors.js';
import type { GrantHandler, TokenResponse } from './grants/index.js';

export interface TokenEndpointRequest {
    body: unknown;
    authorization: string | undefined;
    ipAddress: string | null;
    userAgent: string | null;
    /**
     * called after client authentication, before the grant runs, with the client that proved its
     * secret or null (spec Limits: the client's request budget is charged, else the address's)
     */
    authenticated?: (caller: { kind: 'client'; id: string } | null) => Promise<void>;
}

export interface TokenEndpointDeps extends ClientAuthDeps {
    grants: readonly GrantHandler[];
}


/** RFC 6749 §3.2: parameters are strings and "MUST NOT be included more than once". */
export function readParams(body: unknown): Record<string, string> {
    if (body === undefined || body === null) return {};
    if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The request body must be a form or a JSON object.');
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
        if (Array.isArray(value)) throw invalidRequest(`The parameter ${name} is repeated.`);
        if (typeof value !== 'string') throw invalidRequest(`The parameter ${name} must be a string.`);
        // a NUL is never part of a parameter (and PostgreSQL refuses it in text)
        if (value.includes('\u0000')) throw invalidRequest(`The parameter ${name} is malformed.`);
        params[name] = value;
    }
    return params;
}

/** API.md §4: the realm by `realm_id` or `realm_name`, else the grant's hint, else master. */
export async function resolveRealm(db: Kysely<Database>, params: Record<string, string>, hint: string | undefined) {
    const { realm_id: id, realm_name: name } = params;
    if (id !== undefined && !isUuid(id)) throw invalidRequest('realm_id must be a UUID.');
    let realm: { id: string; name: string } | undefined;
    if (id !== undefined) {
        realm = await findRealmById(db, id);
        // both given: they must name the same realm
        if (name !== undefined && realm?.name !== name) realm = undefined;
    } else if (name !== undefined) {
        realm = await findRealmByName(db, name);
    } else if (hint !== undefined && isUuid(hint)) {
        realm = await findRealmById(db, hint);
    } else {
        realm = await findRealmByName(db, MASTER_REALM);
    }
    if (!realm) throw invalidRequest('The realm does not exist.');
    return realm;
}

/** The client id a request presents, by Basic or body, for locating its realm; never verified here. */
export function presentedClientId(params: Record<string, string>, authorization: string | undefined): string | undefined {
    if (isBasicScheme(authorization)) return decodeBasicRfc6749(authorization)?.id;
    return params.client_id;
}

/**
 * The realm a protocol request works in: `realm_id`/`realm_name` when given; else the grant's
 * hint (a refresh token's realm); else the realm of the client — or, with `users`, the user —
 * whose id the caller presents, so a standard relying party that only knows the discovered
 * endpoints needs no realm parameter; else master (API.md §4's default). Never derived from a
 * presented token, so a token of another realm cannot change the answer.
 */
export async function realmOfRequest(
    db: Kysely<Database>,
    params: Record<string, string>,
    options: { hint?: string | undefined; credentialId?: string | undefined; users?: boolean },
) {
    if (params.realm_id !== undefined || params.realm_name !== undefined || options.hint !== undefined) {
        return resolveRealm(db, params, options.hint);
    }
    const id = options.credentialId;
    if (id !== undefined && isUuid(id)) {
        const owner = id.toLowerCase();
        const realm = await findRealmOfClient(db, owner) ?? (options.users ? await findRealmOfUser(db, owner) : undefined);
        if (realm) return realm;
    }
    return resolveRealm(db, {}, undefined);
}

/**
 * `POST /token` without its transport (DESIGN.md §3): parameters → grant → realm → client
 * authentication → grantTypes → the grant handler.
 */
export function createTokenEndpoint(deps: TokenEndpointDeps) {
    const byType = new Map(deps.grants.map((grant) => [grant.type, grant]));
    return async (request: TokenEndpointRequest): Promise<TokenResponse> => {
        const params = readParams(request.body);
        const grantType = params.grant_type;
        if (!grantType) throw invalidRequest('grant_type is required.');
        const grant = byType.get(grantType);
        if (!grant) throw oauthError(ErrorCode.UNSUPPORTED_GRANT_TYPE, `The grant type ${grantType} is not supported.`);
        const realm = await realmOfRequest(deps.db, params, {
            hint: grant.realmHint?.(params), credentialId: presentedClientId(params, request.authorization),
        });
        const body = {
            ...(params.client_id !== undefined ? { client_id: params.client_id } : {}),
            ...(params.client_secret !== undefined ? { client_secret: params.client_secret } : {}),
        };
        const client = await authenticateClient(deps, realm.id, request.authorization, body);
        await request.authenticated?.(client?.authenticated ? { kind: 'client', id: client.row.id } : null);
        if (client && !clientAllowsGrant(client.row, grantType)) {
            throw oauthError(ErrorCode.UNAUTHORIZED_CLIENT, `The client may not use the ${grantType} grant.`);
        }
        return grant.handle({ db: deps.db, realm, client, params, ipAddress: request.ipAddress, userAgent: request.userAgent });
    };
}

export type TokenEndpoint = ReturnType<typeof createTokenEndpoint>;
