import { failedAuthentication } from '../../limits/failed-authentication.js';
import { ErrorCode } from '@realmgate/core';
import { verifyPasswordLogin } from '../../authn/password-login.js';
import { findUserInRealm } from '../../storage/users.js';
import { invalidGrant, invalidRequest, oauthError } from '../errors.js';
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
            const local = await findUserInRealm(request.db, request.realm.id, username);
            // the local password, else the realm's LDAP directories (authn/password-login.ts)
            const login = await verifyPasswordLogin(
                { db: request.db, dialect: deps.dialect, passwords: deps.passwords, secrets: deps.secondFactor.secrets, outbound: deps.outbound }, request.realm.id, local, username, password,
            );
            // a directory that cannot answer is not a wrong password (RFC 6749 §4.1.2.1 names the code)
            if (login.unavailable) throw oauthError(ErrorCode.TEMPORARILY_UNAVAILABLE, 'The directory that verifies this account could not be reached; try again later.');
            // RFC 6749 §5.2: invalid resource owner credentials are invalid_grant; an inactive
            // account's right password gets the same answer, so it does not reveal the password
            const user = login.user;
            if (!user) {
                const refused = invalidGrant('The username or password is invalid.');
                // a failed login counts toward the address's failures (spec Limits, Authentication rule 16);
                // the right password of an inactive account is refused alike but not counted
                throw login.failed ? failedAuthentication(refused, { realmId: request.realm.id, refType: 'user', refId: local?.id ?? null }) : refused;
            }
            const subject = { id: user.id, kind: 'user' as const, realmId: request.realm.id, realmName: request.realm.name };
            await assertClientAdmits(request, subject);
            const scope = await resolveScope(request.db, request.realm.id, request.params.scope, request.client?.row.id ?? null, deps.scopeBindings);
            await assertNoSecondFactorDue(deps, request, subject, scope);
            return issueForLogin(deps, request, subject, scope, true);
        },
    }),
};
