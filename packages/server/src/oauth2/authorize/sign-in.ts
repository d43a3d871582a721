import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { DUMMY_BCRYPT_HASH, type PasswordHasher } from '../../secrets/passwords.js';
import { findSignInUser, type SignInUser } from '../../storage/authorize-lookups.js';

/**
 * The sign-in form's credential check (issue 13 items 3 and 13): username or email in the client's
 * realm, then the password. An unknown user, a user without a password, a wrong password and an
 * inactive user all answer null, and every path pays one bcrypt verification (DUMMY_BCRYPT_HASH
 * as the password grant does), so neither the answer nor its time tells them apart.
 */
export async function verifySignIn(db: Kysely<Database>, passwords: PasswordHasher, realmId: string, login: string, password: string): Promise<{ user: SignInUser | null; failed: boolean }> {
    const user = await findSignInUser(db, realmId, login);
    const valid = await passwords.verify(password, user?.password ?? DUMMY_BCRYPT_HASH);
    if (!user?.password || !valid) return { user: null, failed: true };
    // right credentials of an inactive user: refused, but not a failed authentication (spec Limits)
    if (!user.active) return { user: null, failed: false };
    return { user, failed: false };
}
