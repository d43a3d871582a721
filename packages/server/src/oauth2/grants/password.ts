import { failedAuthentication } from '../../limits/failed-authentication.js';
import { DUMMY_BCRYPT_HASH } from '../../secrets/passwords.js';
import { findUserInRealm } from '../../storage/users.js';
import { invalidGrant, invalidRequest } from '../errors.js';
import { assertClientAdmits } from './access-policy.js';
import { issueForLogin, type Grant } from './contract.js';
import { resolveScope } from './scope.js';
import { assertNoSecondFactorDue } from './second-factor.js';


/**
 * RFC 6749 §4.3: resource owner password credentials. The user is named (or identified by id) in
 * the request's realm; a client is optional. Issues an access and a refresh token in a new session.
 */
export const passwordGrant: Grant = {
    type: 'password',
    // §4.3.2
    parameters: [{ name: 'username', required: true }, { name: 'password', required: true }, { name: 'scope', required: false }],
    clientAuthentication: 'optional',
    create: (deps) => ({
        async handle(request) {
            const { username, password } = request.params;
            if (!username || password === undefined) throw invalidRequest('The password grant needs username and password.');
            const user = await findUserInRealm(request.db, request.realm.id, username);
            const valid = await deps.passwords.verify(password, user?.password ?? DUMMY_BCRYPT_HASH);
            // RFC 6749 §5.2: invalid resource owner credentials are invalid_grant
            // a failed login counts toward the address's failures (spec Limits, Authentication rule 16)
            if (!user?.password || !valid) {
                throw failedAuthentication(invalidGrant('The username or password is invalid.'), { realmId: request.realm.id, refType: 'user', refId: user?.id ?? null });
            }
            if (!user.active) throw invalidGrant('The user is inactive.');
            const subject = { id: user.id, kind: 'user' as const, realmId: request.realm.id, realmName: request.realm.name };
            await assertClientAdmits(request, subject);
            const scope = await resolveScope(request.db, request.realm.id, request.params.scope, request.client?.row.id ?? null);
            await assertNoSecondFactorDue(deps, request, subject, scope);
            return issueForLogin(deps, request, subject, scope, true);
        },
    }),
};
