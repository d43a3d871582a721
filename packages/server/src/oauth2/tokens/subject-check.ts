import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { fromDbBool, fromDbDate } from '../../db/values.js';
import type { TokenClaims } from './claims.js';
import type { TokenFailure } from './service.js';

const failure = (code: TokenFailure['code'], message: string): TokenFailure => ({ ok: false, code, message });

/** The subject row of a token: a user or a client, by sub_kind. */
export async function findSubject(db: Kysely<Database>, claims: Pick<TokenClaims, 'sub' | 'sub_kind'>) {
    const table = claims.sub_kind === 'user' ? 'auth_users' : 'auth_clients';
    return db.selectFrom(table).select(['realm_id', 'active']).where('id', '=', claims.sub).executeTakeFirst();
}

/**
 * Spec Authentication rule 2: the subject and the session of a token belong to the realm it names;
 * the session row is read on every call, so a revoked session answers 401 on the next request, on
 * every replica (spec States). Null when the token may be used.
 */
export async function verifySubjectAndSession(db: Kysely<Database>, claims: TokenClaims): Promise<TokenFailure | null> {
    const [subject, session] = await Promise.all([
        findSubject(db, claims),
        db.selectFrom('auth_sessions')
            .leftJoin('auth_clients', 'auth_clients.id', 'auth_sessions.client_id')
            .select([
                'auth_sessions.sub', 'auth_sessions.realm_id', 'auth_sessions.client_id', 'auth_sessions.expires_at',
                'auth_sessions.revoked_at', 'auth_clients.active as client_active',
            ])
            .where('auth_sessions.id', '=', claims.session_id)
            .executeTakeFirst(),
    ]);
    if (!subject || subject.realm_id !== claims.realm_id) return failure('invalid_token', 'The token is invalid.');
    if (!session || session.realm_id !== claims.realm_id || session.sub !== claims.sub || session.client_id !== (claims.client_id ?? null)) {
        return failure('invalid_token', 'The token is invalid.');
    }
    // spec States: deactivating the user or client ends its sessions
    if (!fromDbBool(subject.active)) return failure('inactive_token', 'The token is inactive: its subject is inactive.');
    if (session.client_id !== null && !fromDbBool(session.client_active)) return failure('inactive_token', 'The token is inactive: its client is inactive.');
    if (session.revoked_at !== null) return failure('inactive_token', 'The token is inactive: its session has ended.');
    if (fromDbDate(session.expires_at).getTime() <= Date.now()) return failure('inactive_token', 'The token is inactive: its session has expired.');
    return null;
}
