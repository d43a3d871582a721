import { isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database, UserTable } from '../db/schema.js';
import { fromDbBool, fromDbDateOrNull } from '../db/values.js';

/** A user as authentication sees it: its password hash (null: none set) and whether it is active. */
export interface UserCredentials {
    id: string;
    realmId: string;
    active: boolean;
    password: string | null;
}

const CREDENTIAL_COLUMNS = ['id', 'realm_id', 'active', 'password'] as const;

function credentialsOf(row: Pick<UserTable, (typeof CREDENTIAL_COLUMNS)[number]>): UserCredentials {
    return { id: row.id, realmId: row.realm_id, active: fromDbBool(row.active), password: row.password };
}

/** A user of any realm by its id (lower-case UUID); undefined when there is none. */
export async function findUserById(db: Kysely<Database>, id: string): Promise<UserCredentials | undefined> {
    const row = await db.selectFrom('auth_users').select(CREDENTIAL_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && credentialsOf(row);
}

/** A user of the realm by id (a UUID in any case) or by name; undefined when there is none. */
export async function findUserInRealm(db: Kysely<Database>, realmId: string, idOrName: string): Promise<UserCredentials | undefined> {
    // a NUL is never part of a name (and PostgreSQL refuses it in text)
    if (idOrName.includes('\u0000')) return undefined;
    const byId = isUuid(idOrName);
    const row = await db.selectFrom('auth_users').select(CREDENTIAL_COLUMNS)
        .where(byId ? 'id' : 'name', '=', byId ? idOrName.toLowerCase() : idOrName)
        .where('realm_id', '=', realmId)
        .executeTakeFirst();
    return row && credentialsOf(row);
}

/** What the OpenID claims of a user are made of (OpenID Connect Core §5.1). */
export interface UserProfile {
    name: string;
    email: string | null;
    emailVerified: boolean;
    firstName: string | null;
    lastName: string | null;
    displayName: string | null;
    updatedAt: Date | null;
}

/** The profile of a user by id; undefined when there is none. */
export async function findUserProfile(db: Kysely<Database>, userId: string): Promise<UserProfile | undefined> {
    const row = await db.selectFrom('auth_users')
        .select(['name', 'email', 'email_verified', 'first_name', 'last_name', 'display_name', 'updated_at'])
        .where('id', '=', userId).executeTakeFirst();
    if (!row) return undefined;
    return {
        name: row.name, email: row.email, emailVerified: fromDbBool(row.email_verified), firstName: row.first_name,
        lastName: row.last_name, displayName: row.display_name, updatedAt: fromDbDateOrNull(row.updated_at),
    };
}
