import type { RequestContext } from '../../authz/request-context.js';
import { toDbDate } from '../../db/values.js';
import type { ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { bulkEnd, type Where } from './bulk.js';

/** Spec "Client, user and session routes": the flat keys that make DELETE /sessions a force-logout. */
export const SESSION_TARGET_KEYS = ['id', 'sub', 'subKind', 'userId', 'clientId', 'realmId'] as const;
/** The same rule on tokens: keys that name rows rather than narrow the caller's own. */
export const SESSION_TOKEN_TARGET_KEYS = ['id', 'sessionId'] as const;

/** The caller's sessions except the one the request came through (none for Basic). */
function ownOtherSessions(ctx: RequestContext): Where {
    const identity = ctx.actor.identity!;
    return (eb) => eb.and([
        eb('auth_sessions.sub', '=', identity.id),
        eb('auth_sessions.sub_kind', '=', identity.type),
        ...(ctx.actor.sessionId ? [eb('auth_sessions.id', '!=', ctx.actor.sessionId)] : []),
    ]);
}

/**
 * DELETE /sessions: revokes the sessions the filter names (self-service or force-logout, see
 * bulk.ts); the number revoked. A count, not the rows: a realm-wide force-logout may end more
 * sessions than a page holds.
 */
export function endSessions(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, query: Record<string, unknown>): Promise<number> {
    return bulkEnd(deps, definition, ctx, query, {
        targetKeys: SESSION_TARGET_KEYS,
        ownRows: ownOtherSessions,
        async apply(tx, where) {
            const now = toDbDate(deps.handle.dialect, new Date());
            const result = await tx.updateTable('auth_sessions').set({ revoked_at: now, updated_at: now })
                .where(where).where('auth_sessions.revoked_at', 'is', null).executeTakeFirst();
            return Number(result.numUpdatedRows);
        },
    });
}

/**
 * DELETE /session-tokens: the filter rules of DELETE /sessions; self-service deletes the tokens of
 * the caller's other sessions. Deleting a refresh token's row revokes it (the refresh grant needs it).
 */
export function endSessionTokens(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, query: Record<string, unknown>): Promise<number> {
    return bulkEnd(deps, definition, ctx, query, {
        targetKeys: SESSION_TOKEN_TARGET_KEYS,
        ownRows: (context) => {
            const own = ownOtherSessions(context);
            return (eb) => eb('auth_session_tokens.session_id', 'in', eb.selectFrom('auth_sessions').select('auth_sessions.id').where(own));
        },
        async apply(tx, where) {
            const result = await tx.deleteFrom('auth_session_tokens').where(where).executeTakeFirst();
            return Number(result.numDeletedRows);
        },
    });
}
