import { verifyPasswordLogin, type PasswordLoginDeps, type PasswordLoginResult } from '../../authn/password-login.js';
import { findSignInUser } from '../../storage/authorize-lookups.js';

/**
 * The sign-in form's credential check (protected like the password grant): username or email in the client's
 * realm, then the password, by the source that verifies it (authn/password-login.ts: the local
 * password, else the realm's LDAP directories; RFC 4515 filter escaping). An unknown user, a user without a
 * password, a wrong password and an inactive user all answer null, and every path pays one bcrypt
 * verification, so neither the answer nor its time tells them apart.
 */
export async function verifySignIn(deps: PasswordLoginDeps, realmId: string, login: string, password: string): Promise<PasswordLoginResult> {
    const user = await findSignInUser(deps.db, realmId, login);
    return verifyPasswordLogin(deps, realmId, user, login, password);
}
