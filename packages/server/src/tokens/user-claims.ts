import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findUserProfile, type UserProfile } from '../storage/users.js';

/** The profile claims of a user (OpenID Connect Core §5.1); each is omitted when unavailable, never null. */
export interface ProfileClaims {
    preferred_username?: string;
    /** the End-User's full name in displayable form (Core §5.1): the display name */
    name?: string;
    nickname?: string;
    given_name?: string;
    family_name?: string;
    /** seconds since the epoch */
    updated_at?: number;
}

export interface EmailClaims {
    email?: string;
    email_verified?: boolean;
}

/**
 * A user's OpenID claims from its row, in one place for introspection and ID tokens, so both
 * name the same user alike. Undefined when the user does not exist.
 */
export async function userClaims(db: Kysely<Database>, userId: string): Promise<{ profile: ProfileClaims; email: EmailClaims } | undefined> {
    const user = await findUserProfile(db, userId);
    return user && claimsOfProfile(user);
}

/** The OpenID claims of a user's profile row (read by userClaims, or with a token's state). */
export function claimsOfProfile(user: UserProfile): { profile: ProfileClaims; email: EmailClaims } {
    const profile: ProfileClaims = { preferred_username: user.name };
    if (user.displayName) {
        profile.name = user.displayName;
        profile.nickname = user.displayName;
    }
    if (user.firstName) profile.given_name = user.firstName;
    if (user.lastName) profile.family_name = user.lastName;
    if (user.updatedAt) profile.updated_at = Math.floor(user.updatedAt.getTime() / 1000);
    const email: EmailClaims = user.email ? { email: user.email, email_verified: user.emailVerified } : {};
    return { profile, email };
}

/** OpenID Connect Core §5.4: the scopes that release the profile claims (`identity` is this server's older name) and the address. */
const PROFILE_SCOPES = ['profile', 'identity'];
const EMAIL_SCOPE = 'email';

/**
 * The claims a granted scope releases of a user (OpenID Connect Core §5.4), for the ID token and
 * the UserInfo response alike: the profile claims with `profile` (or `identity`), `email` and
 * `email_verified` with `email`. Members without a value are absent, never null.
 */
export function releasedClaims(scope: string, claims: { profile: ProfileClaims; email: EmailClaims } | undefined): ProfileClaims & EmailClaims {
    if (!claims) return {};
    const names = scope.split(' ');
    return {
        ...(PROFILE_SCOPES.some((name) => names.includes(name)) ? claims.profile : {}),
        ...(names.includes(EMAIL_SCOPE) ? claims.email : {}),
    };
}
