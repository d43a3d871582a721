import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DbDate } from '../db/schema.js';
import { fromDbDate, toDbDate, type DialectName } from '../db/values.js';
import type { RowCondition } from './resource/rows.js';
import { dynamic } from './resource/table.js';
import type { SubjectKind } from './subjects.js';

/** A session a revocation moved from live to revoked: what back-channel logout needs of it. */
export interface EndedSession {
    id: string;
    sub: string;
    subKind: SubjectKind;
    clientId: string | null;
    realmId: string;
    /** an expired session ends by itself: revoking it later announces nothing (spec States) */
    expiresAt: Date;
}

/** ids per `IN` list of a cascade step */
const CHUNK = 500;
/** parent → child → …: the model has two levels (browser session, application session); a bound keeps a bad row from looping */
const MAX_DEPTH = 8;

interface EndedRow { id: string; sub: string; sub_kind: string; client_id: string | null; realm_id: string; expires_at: DbDate }

const COLUMNS = ['id', 'sub', 'sub_kind', 'client_id', 'realm_id', 'expires_at'];

const endedOf = (row: EndedRow): EndedSession => ({
    id: row.id, sub: row.sub, subKind: row.sub_kind as SubjectKind, clientId: row.client_id, realmId: row.realm_id, expiresAt: fromDbDate(row.expires_at),
});

/**
 * One UPDATE of the live sessions `where` chooses; the rows it changed. PostgreSQL and SQLite say
 * so with RETURNING: a concurrent revocation of the same row waits for the row lock and then no
 * longer matches `revoked_at IS NULL` (PostgreSQL re-checks the condition; SQLite has one writer),
 * so no session is reported twice. MySQL has no RETURNING: the rows are selected FOR UPDATE in the
 * caller's transaction (a locking read sees the latest commit, so the second revocation waits and
 * then finds them revoked) and updated by id.
 */
async function revokeOnce(db: Kysely<Database>, dialect: DialectName, where: RowCondition): Promise<EndedSession[]> {
    const now = toDbDate(dialect, new Date());
    const untyped = dynamic(db);
    if (dialect !== 'mysql') {
        const rows = await untyped.updateTable('auth_sessions').set({ revoked_at: now, updated_at: now })
            .where(where).where('auth_sessions.revoked_at', 'is', null)
            .returning(COLUMNS).execute() as EndedRow[];
        return rows.map(endedOf);
    }
    const rows = await untyped.selectFrom('auth_sessions').select(COLUMNS)
        .where(where).where('auth_sessions.revoked_at', 'is', null).forUpdate().execute() as EndedRow[];
    for (let start = 0; start < rows.length; start += CHUNK) {
        const ids = rows.slice(start, start + CHUNK).map((row) => row.id);
        await untyped.updateTable('auth_sessions').set({ revoked_at: now, updated_at: now })
            .where('id', 'in', ids).where('revoked_at', 'is', null).execute();
    }
    return rows.map(endedOf);
}

async function revokeCascadeIn(db: Kysely<Database>, dialect: DialectName, where: RowCondition): Promise<EndedSession[]> {
    const ended: EndedSession[] = [];
    let parents = await revokeOnce(db, dialect, where);
    for (let depth = 0; parents.length > 0 && depth < MAX_DEPTH; depth++) {
        ended.push(...parents);
        const children: EndedSession[] = [];
        for (let start = 0; start < parents.length; start += CHUNK) {
            const ids = parents.slice(start, start + CHUNK).map((session) => session.id);
            children.push(...await revokeOnce(db, dialect, (eb) => eb('auth_sessions.parent_id', 'in', ids)));
        }
        parents = children;
    }
    return ended;
}

/**
 * Revokes the live sessions `where` chooses and, with them, the sessions signed in through them
 * (parent_id: ending a browser session ends the application sessions it started); the
 * sessions this call moved from live to revoked, each once. On MySQL outside a transaction it
 * opens one, for the row locks of revokeOnce.
 */
export async function revokeSessionsCascading(db: Kysely<Database>, dialect: DialectName, where: RowCondition): Promise<EndedSession[]> {
    if (dialect === 'mysql' && !db.isTransaction) return db.transaction().execute((tx) => revokeCascadeIn(tx, dialect, where));
    return revokeCascadeIn(db, dialect, where);
}
