import type { RequestContext } from '../../authz/request-context.js';
import { deleteSessionTokensWhere, otherSessionsOf, tokensOfSessions } from '../../storage/sessions-admin.js';
import type { RowCondition } from '../../storage/resource/rows.js';
import type { ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import type { RevokeSessionDeps } from './revoke.js';
import { bulkEnd } from './bulk.js';

/** Spec "Client, user and session routes": the flat keys that make DELETE /sessions a force-logout. */
const SESSION_TARGET_KEYS = ['id', 'sub', 'subKind', 'userId', 'clientId', 'realmId'] as const;
/** The same rule on tokens: keys that name rows rather than narrow the caller's own. */
const SESSION_TOKEN_TARGET_KEYS = ['id', 'sessionId'] as const;

/** The caller's sessions except the one the request came through (none for Basic). */
function ownOtherSessions(ctx: RequestContext): RowCondition {
    const identity = ctx.actor.identity!;
    return otherSessionsOf(identity, ctx.actor.sessionId ?? null);
}

/**
 * DELETE /sessions: revokes the sessions the filter names (self-service or force-logout, see
 * bulk.ts); the number revoked. A count, not the rows: a realm-wide force-logout may end more
 * sessions than a page holds.
 */
export function endSessions(deps: RevokeSessionDeps, definition: ResourceDefinition, ctx: RequestContext, query: Record<string, unknown>): Promise<number> {
    return bulkEnd(deps, definition, ctx, query, {
        targetKeys: SESSION_TARGET_KEYS,
        ownRows: ownOtherSessions,
        // through the store: the children end too and back-channel logout hears of every one (spec Events 6)
        apply: async (tx, where) => (await deps.sessions.endWhere(tx, where)).length,
    });
}

/**
 * DELETE /session-tokens: the filter rules of DELETE /sessions; self-service deletes the tokens of
 * the caller's other sessions. Deleting a refresh token's row revokes it (the refresh grant needs it).
 */
export function endSessionTokens(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, query: Record<string, unknown>): Promise<number> {
    return bulkEnd(deps, definition, ctx, query, {
        targetKeys: SESSION_TOKEN_TARGET_KEYS,
        ownRows: (context) => tokensOfSessions(ownOtherSessions(context)),
        apply: deleteSessionTokensWhere,
    });
}
