import type { RequestContext } from '../../authz/request-context.js';
import { callerRow } from '../identity/caller.js';
import type { ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import type { EntityRecord } from '../resource/records.js';
import { updateEntity } from '../resource/write.js';

/** The body of `POST /users/@me/password` (API.md §7 "Account routes": current + new). */
export interface OwnPasswordChange {
    currentPassword: string;
    password: string;
}

/**
 * `POST /users/@me/password`: the calling user changes its own password. It is the user update
 * with the current password required (current-password.ts), so the same authorization, hashing
 * and session rule apply: the session of the request continues, every other ends (spec States).
 */
export async function changeOwnPassword(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, change: OwnPasswordChange): Promise<EntityRecord> {
    const row = await callerRow(deps, definition, ctx, 'user');
    return updateEntity(deps, definition, ctx, String(row.id), { currentPassword: change.currentPassword, password: change.password });
}
