import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbBool } from '../db/values.js';

/** A token subject or check subject: a user or a client (both tables have id, realm_id and active). */
export type SubjectKind = 'user' | 'client';

const tableOf = (kind: SubjectKind) => (kind === 'user' ? 'auth_users' : 'auth_clients');

/** The realm and active mark of a subject; undefined when it does not exist. */
export async function findSubjectState(db: Kysely<Database>, kind: SubjectKind, id: string): Promise<{ realmId: string; active: boolean } | undefined> {
    const row = await db.selectFrom(tableOf(kind)).select(['realm_id', 'active']).where('id', '=', id).executeTakeFirst();
    return row && { realmId: row.realm_id, active: fromDbBool(row.active) };
}

/** A subject with its realm's name, as authorization names an identity; undefined when it does not exist. */
export async function findSubjectWithRealm(db: Kysely<Database>, kind: SubjectKind, id: string): Promise<{ id: string; realmId: string; realmName: string | null } | undefined> {
    const row = await db.selectFrom(`${tableOf(kind)} as s` as 'auth_users as s')
        .leftJoin('auth_realms as r', 'r.id', 's.realm_id')
        .select(['s.id', 's.realm_id', 'r.name as realm_name'])
        .where('s.id', '=', id)
        .executeTakeFirst();
    return row && { id: row.id, realmId: row.realm_id, realmName: row.realm_name ?? null };
}
