import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { dynamic } from './resource/table.js';
import type { RowCondition } from './resource/rows.js';

/*
 * The bulk ends of the administrative API (DELETE /sessions, DELETE /session-tokens): the rows are
 * chosen by a list filter, so the conditions are the engine's untyped ones.
 */

/** The sessions of an identity except the one the request came through (none for Basic). */
export function otherSessionsOf(identity: { id: string; type: string }, currentSessionId: string | null): RowCondition {
    return (eb) => eb.and([
        // a user's sessions carry user_id = sub: the user_id index finds them (migration 0011)
        ...(identity.type === 'user' ? [eb('auth_sessions.user_id', '=', identity.id)] : []),
        eb('auth_sessions.sub', '=', identity.id),
        eb('auth_sessions.sub_kind', '=', identity.type),
        ...(currentSessionId ? [eb('auth_sessions.id', '!=', currentSessionId)] : []),
    ]);
}

/** The tokens of the sessions a session condition chooses. */
export function tokensOfSessions(sessions: RowCondition): RowCondition {
    return (eb) => eb('auth_session_tokens.session_id', 'in', eb.selectFrom('auth_sessions').select('auth_sessions.id').where(sessions));
}

/** Delete the stored refresh tokens the condition chooses; the number deleted. */
export async function deleteSessionTokensWhere(db: Kysely<Database>, where: RowCondition): Promise<number> {
    const result = await dynamic(db).deleteFrom('auth_session_tokens').where(where).executeTakeFirst();
    return Number(result.numDeletedRows);
}
