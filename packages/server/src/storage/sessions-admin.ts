import type { Kysely } from 'kysely';
import type { Database, DbDate } from '../db/schema.js';
import { dynamic } from './resource/table.js';
import type { RowCondition } from './resource/rows.js';

/*
 * The bulk ends of the administrative API (DELETE /sessions, DELETE /session-tokens): the rows are
 * chosen by a list filter, so the conditions are the engine's untyped ones.
 */

/** The sessions of an identity except the one the request came through (none for Basic). */
export function otherSessionsOf(identity: { id: string; type: string }, currentSessionId: string | null): RowCondition {
    return (eb) => eb.and([
        eb('auth_sessions.sub', '=', identity.id),
        eb('auth_sessions.sub_kind', '=', identity.type),
        ...(currentSessionId ? [eb('auth_sessions.id', '!=', currentSessionId)] : []),
    ]);
}

/** The tokens of the sessions a session condition chooses. */
export function tokensOfSessions(sessions: RowCondition): RowCondition {
    return (eb) => eb('auth_session_tokens.session_id', 'in', eb.selectFrom('auth_sessions').select('auth_sessions.id').where(sessions));
}

/** Revoke the sessions not yet revoked that the condition chooses; the number revoked. */
export async function revokeSessionsWhere(db: Kysely<Database>, where: RowCondition, now: DbDate): Promise<number> {
    const result = await dynamic(db).updateTable('auth_sessions').set({ revoked_at: now, updated_at: now })
        .where(where).where('auth_sessions.revoked_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows);
}

/** Delete the stored refresh tokens the condition chooses; the number deleted. */
export async function deleteSessionTokensWhere(db: Kysely<Database>, where: RowCondition): Promise<number> {
    const result = await dynamic(db).deleteFrom('auth_session_tokens').where(where).executeTakeFirst();
    return Number(result.numDeletedRows);
}
