import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbBool, fromDbDateOrNull } from '../db/values.js';

/** The profile claims of a user (OpenID Connect Core §5.1); each is omitted when unavailable, never null. */
export interface ProfileClaims {
    preferred_username?: string;
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
    const user = await db.selectFrom('auth_users')
        .select(['name', 'email', 'email_verified', 'first_name', 'last_name', 'display_name', 'updated_at'])
        .where('id', '=', userId).executeTakeFirst();
    if (!user) return undefined;
    const profile: ProfileClaims = { preferred_username: user.name };
    if (user.display_name) profile.nickname = user.display_name;
    if (user.first_name) profile.given_name = user.first_name;
    if (user.last_name) profile.family_name = user.last_name;
    const updatedAt = fromDbDateOrNull(user.updated_at);
    if (updatedAt) profile.updated_at = Math.floor(updatedAt.getTime() / 1000);
    const email: EmailClaims = user.email ? { email: user.email, email_verified: fromDbBool(user.email_verified) } : {};
    return { profile, email };
}
