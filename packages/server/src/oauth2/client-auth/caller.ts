import { ErrorCode } from '@realmgate/core';
import { authenticateBasic } from '../../authn/basic.js';
import { isBasicScheme } from '../../authn/basic-credentials.js';
import { AppError } from '../../errors/app-error.js';
import { failedAuthentication, isFailedAuthentication } from '../../limits/failed-authentication.js';
import { invalidClient } from '../errors.js';
import { bodyClientCredentials, presentedClientId, realmOfRequest } from '../steps.js';
import { authenticateClient, type ClientAuthDeps } from './authenticate.js';

/**
 * Who asks for the revocation or introspection: an identified client (`authenticated` when it
 * proved its secret), or a user proving itself with Basic; `realmId` is the caller's own realm.
 */
export type Caller = { kind: 'client'; id: string; realmId: string; authenticated: boolean } |
    { kind: 'user'; id: string; realmId: string; authenticated: true };

/**
 * RFC 7009 §2.1: the client authenticates as at the token endpoint (Basic, body or a client
 * assertion, never two; a public client names itself with `client_id`). A token issued without a client has no client to
 * authenticate, so its subject may revoke it by authenticating with Basic as that user; Basic is
 * tried as a client of the realm first, then as a user. Every failure is invalid_client (§2.2.1).
 */
export async function authenticateCaller(deps: ClientAuthDeps, params: Record<string, string>, authorization: string | undefined): Promise<Caller> {
    const basic = isBasicScheme(authorization);
    const body = bodyClientCredentials(params);
    if (!basic && Object.keys(body).length === 0 && authorization === undefined) {
        throw invalidClient('Client authentication is required (RFC 7009 §2.1).');
    }
    const realm = await realmOfRequest(deps.db, params, { credentialId: presentedClientId(params, authorization), users: true }, deps.lookups);
    try {
        const client = await authenticateClient(deps, realm.id, authorization, body);
        if (client) return { kind: 'client', id: client.row.id, realmId: client.row.realmId, authenticated: client.authenticated };
    } catch (error) {
        if (!basic || !(error instanceof AppError) || error.code !== ErrorCode.INVALID_CLIENT) throw error;
    }
    if (!basic) throw invalidClient('Client authentication is required (RFC 7009 §2.1).');
    let failed = false;
    try {
        const actor = await authenticateBasic(deps, authorization, realm.id);
        if (actor.identity?.type === 'user' && actor.identity.realmId) {
            return { kind: 'user', id: actor.identity.id, realmId: actor.identity.realmId, authenticated: true };
        }
    } catch (error) {
        // a wrong user password is a failed client authentication here (RFC 7009 §2.2.1)
        failed = isFailedAuthentication(error);
    }
    throw failed ? failedAuthentication(invalidClient()) : invalidClient();
}
