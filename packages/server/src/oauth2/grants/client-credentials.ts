import { ErrorCode } from '@realmgate/core';
import { invalidClient, oauthError } from '../errors.js';
import { issueForLogin, type GrantDeps, type GrantHandler } from './contract.js';
import { resolveScope } from './scope.js';

/**
 * RFC 6749 §4.4: the client acts on its own behalf. Confidential clients only (spec Authentication
 * rule 1); no refresh token is issued (§4.4.3).
 */
export function clientCredentialsGrant(deps: GrantDeps): GrantHandler {
    return {
        type: 'client_credentials',
        async handle(request) {
            const client = request.client;
            if (!client) throw invalidClient('The client_credentials grant needs client authentication.');
            if (!client.authenticated) {
                throw oauthError(ErrorCode.UNAUTHORIZED_CLIENT, 'The client_credentials grant needs a confidential client.');
            }
            const scope = await resolveScope(request.db, request.realm.id, request.params.scope, client.row.id);
            const subject = { id: client.row.id, kind: 'client' as const, realmId: request.realm.id, realmName: request.realm.name };
            return issueForLogin(deps, request, subject, scope, false);
        },
    };
}
