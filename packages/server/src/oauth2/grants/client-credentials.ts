import { required } from '../pipeline.js';
import { assertClientAdmits } from './access-policy.js';
import { issueForLogin, type Grant } from './contract.js';
import { resolveScope } from './scope.js';
import { narrowedAudience } from '../resource-indicators.js';

/**
 * RFC 6749 §4.4: the client acts on its own behalf. Confidential clients only (spec Authentication
 * rule 1: `clientAuthentication: 'required'`, enforced by the token endpoint); no refresh token is
 * issued (§4.4.3).
 */
export const clientCredentialsGrant: Grant = {
    type: 'client_credentials',
    // §4.4.2; RFC 8707 §2.2
    parameters: [{ name: 'scope', required: false }, { name: 'resource', required: false }],
    clientAuthentication: 'required',
    create: (deps) => ({
        async handle(request) {
            const client = required(request.client, 'the authenticated client');
            const subject = { id: client.row.id, kind: 'client' as const, realmId: request.realm.id, realmName: request.realm.name };
            await assertClientAdmits(request, subject);
            const scope = await resolveScope(request.db, request.realm.id, request.params.scope, client.row.id, deps.scopeBindings);
            const audience = await narrowedAudience(request.db, request.realm.id, request.params.resource, null);
            return issueForLogin(deps, request, subject, scope, false, audience);
        },
    }),
};
