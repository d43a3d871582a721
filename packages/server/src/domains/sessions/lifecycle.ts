import { fromDbBool } from '../../db/values.js';
import type { RequestContext } from '../../authz/request-context.js';
import type { SessionStore } from '../../tokens/sessions.js';
import type { DbBool } from '../../db/schema.js';
import type { TableRow } from '../../storage/resource/table.js';
import type { Tx } from '../resource/context.js';

/*
 * Spec "States and transitions": what ends sessions when an identity changes. Each runs as the
 * update's afterUpdate hook, in its transaction, so the change and the end commit together.
 */

type AfterUpdate<T extends 'auth_users' | 'auth_clients'> = (ctx: RequestContext, before: TableRow<T>, after: TableRow<T>, tx: Tx) => Promise<void>;

const deactivated = (before: { active: DbBool }, after: { active: DbBool }): boolean =>
    fromDbBool(before.active) && !fromDbBool(after.active);

/**
 * A deactivated user loses every session. A new password set by the user itself is a password
 * change: the session the request came through continues and every other ends (Basic carries no
 * session, so then all end). Set by anyone else it is a reset, which ends every session.
 */
export function endUserSessions(sessions: SessionStore): AfterUpdate<'auth_users'> {
    return async (ctx, before, after, tx) => {
        const subject = { kind: 'user' as const, id: after.id };
        if (deactivated(before, after)) {
            await sessions.endOfSubject(tx, subject);
            return;
        }
        if (before.password === after.password) return;
        const identity = ctx.actor.identity;
        const self = identity?.type === 'user' && identity.id === subject.id;
        await sessions.endOfSubject(tx, subject, self ? ctx.actor.sessionId ?? null : null);
    };
}

/** A deactivated client loses the sessions it is the subject of and those issued through it. */
export function endClientSessions(sessions: SessionStore): AfterUpdate<'auth_clients'> {
    return async (_ctx, before, after, tx) => {
        if (deactivated(before, after)) await sessions.endOfClient(tx, after.id);
    };
}
