import { ErrorCode } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError } from '../../errors/app-error.js';
import type { SessionStore } from '../../tokens/sessions.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import { recordEvent } from '../events.js';
import { authorizeAction } from '../resource/authorize.js';
import type { Tx, ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { shapeRow } from '../resource/read.js';
import { recordOf, type EntityRecord, type Row } from '../resource/records.js';
import { selectRowById } from '../../storage/resource/rows.js';
import { findRow, getRow } from '../resource/resolve.js';
import { realmOfRow } from '../resource/spec.js';

export interface RevokeSessionDeps extends ResourceDeps {
    sessions: SessionStore;
}

/** `@me` names the session of the request's bearer token; Basic carries none. */
function currentSessionKey(ctx: RequestContext, key: string): string {
    if (key !== '@me') return key;
    if (!ctx.actor.sessionId) throw new AppError(ErrorCode.ENTITY_NOT_FOUND, 'The request carries no session: @me names a bearer token\'s session.');
    return ctx.actor.sessionId;
}

const ownsSession = (ctx: RequestContext, row: Row): boolean =>
    ctx.actor.identity !== null && row.sub === ctx.actor.identity.id && row.sub_kind === ctx.actor.identity.type;

/** `GET /sessions/@me`: the caller's current session; reading oneself needs no session_read, like GET /users/@me. */
export async function readCurrentSession(deps: Pick<ResourceDeps, 'db'>, definition: ResourceDefinition, ctx: RequestContext, query: Record<string, unknown>): Promise<EntityRecord> {
    const row = await findRow(deps.db, definition.spec, ctx, currentSessionKey(ctx, '@me'));
    if (!row) throw new AppError(ErrorCode.ENTITY_NOT_FOUND, 'The session was not found.');
    return shapeRow(ctx, definition, row, query);
}

/**
 * DELETE /sessions/:id (spec States): sets revoked_at, so every token of the session answers 401
 * on its next request. Its owner may end it (a logout); anyone else needs session_delete reaching
 * the session's realm. Ending an ended session changes nothing and answers the record again.
 */
export async function revokeSession(deps: RevokeSessionDeps, definition: ResourceDefinition, ctx: RequestContext, key: string): Promise<EntityRecord> {
    const { spec, hooks } = definition;
    return writeTransaction(deps, { preload: () => ctx.authorizer() }, async (tx: Tx, lock) => {
        const row = await getRow(tx, spec, ctx, currentSessionKey(ctx, key), lock);
        const record = recordOf(definition, row);
        if (!ownsSession(ctx, row)) await authorizeAction(ctx, spec, hooks, 'delete', { realmId: realmOfRow(spec, row), record });
        if (row.revoked_at !== null && row.revoked_at !== undefined) return record;
        await deps.sessions.revoke(tx, row.id);
        const stored = recordOf(definition, await selectRowById(tx, spec, row.id));
        await recordEvent(tx, deps.handle.dialect, ctx, {
            name: `${spec.entity}.deleted`, refType: spec.entity, refId: row.id, realmId: realmOfRow(spec, row) ?? null, data: stored,
        });
        return stored;
    });
}
