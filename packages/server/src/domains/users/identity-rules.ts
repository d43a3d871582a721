import { BuiltInPolicyType } from '@realmgate/access';
import { ErrorCode, isUuid } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError, issue, validationFailed } from '../../errors/app-error.js';
import type { Tx, ResourceHooks } from '../resource/context.js';
import type { Row } from '../resource/records.js';
import { realmMatchOf } from '../resource/spec.js';
import { findPathPlace } from '../../storage/paths.js';

/*
 * Rules users and clients share: both are identities a caller names in Basic credentials and in
 * `:id`, both are filed into folders, and both may manage themselves under a denylist.
 */

/**
 * A Basic credential splits at the first `:` (RFC 7617 §2), `/` would break a path segment and `@`
 * starts a reserved segment (spec "Schema and statistics facets"), so names avoid them there.
 */
export const IDENTITY_NAME_PATTERN = '^[^\\s:/@][^\\s:/]*$';

/** `:id` accepts an id or a name (API.md §1): a name shaped like a UUID would be read as an id. */
export function assertNameNotUuid(name: unknown): void {
    if (typeof name === 'string' && isUuid(name)) {
        throw validationFailed([issue(['name'], 'invalid_pattern', 'must not have the shape of an id (UUID)')]);
    }
}

/**
 * pathId names a folder of the row's own realm (spec "Other resource fields": a nullable reference
 * to a folder; folders are realm-bound).
 */
export async function assertFolderOfRealm(tx: Tx, pathId: unknown, realmId: unknown): Promise<void> {
    if (typeof pathId !== 'string') return;
    const folder = await findPathPlace(tx, pathId.toLowerCase());
    if (!folder || folder.realm_id !== realmId) {
        throw validationFailed([issue(['pathId'], 'invalid_reference', 'must name a folder of the same realm')]);
    }
}

/**
 * An identity stays in its realm: names are unique per realm, its attributes carry the realm as
 * their reach axis, and its folder belongs to the realm — a move would silently break all three.
 */
export function refuseRealmMove(entity: string, row: Row, input: Record<string, unknown>): void {
    if (input.realmId !== undefined && input.realmId !== row.realm_id) {
        throw validationFailed([issue(['realmId'], 'immutable', `a ${entity} cannot move to another realm`)]);
    }
}

/**
 * `<entity>_update` on oneself falls back to `<entity>_self_manage`. That permission
 * is bound to system.default (so a grant is needed) and to the self-manage denylist policy, which
 * refuses the denylisted members through attributeNames (the body's keys).
 */
export function selfManageAuthorizer(type: 'user' | 'client', permission: string): NonNullable<ResourceHooks['authorize']> {
    return async (ctx: RequestContext, action, subject, fallback) => {
        if (action !== 'update') return fallback();
        try {
            await fallback();
        } catch (error) {
            const identity = ctx.actor.identity;
            const self = identity?.type === type && identity.id === subject.record.id;
            if (!self || !(error instanceof AppError) || error.code !== ErrorCode.PERMISSION_DENIED) throw error;
            const authorizer = await ctx.authorizer();
            await authorizer.assert(permission, {
                ...realmMatchOf(subject.realmId),
                [BuiltInPolicyType.ATTRIBUTES]: subject.record,
                // without explicit names the policy flattens the whole record, so it refuses
                ...(subject.attributeNames ? { [BuiltInPolicyType.ATTRIBUTE_NAMES]: subject.attributeNames } : {}),
            });
        }
    };
}
