import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The tables that own attributes (spec user and role attributes). */
export type AttributeOwnerTable = 'auth_users' | 'auth_roles' | 'auth_identity_providers';

/** The realm of an attribute's owner; undefined when no owner has this id (a global role: null). */
export async function findOwnerRealm(db: Kysely<Database>, table: AttributeOwnerTable, id: string): Promise<{ realm_id: string | null } | undefined> {
    // two statements rather than a dynamic table name: each stays typed by its own table
    if (table === 'auth_users') return db.selectFrom('auth_users').select('realm_id').where('id', '=', id).executeTakeFirst();
    if (table === 'auth_identity_providers') return db.selectFrom('auth_identity_providers').select('realm_id').where('id', '=', id).executeTakeFirst();
    return db.selectFrom('auth_roles').select('realm_id').where('id', '=', id).executeTakeFirst();
}
