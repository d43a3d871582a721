import { BuiltInPolicyType } from '@realmgate/access';
import type { RequestContext } from '../../authz/request-context.js';
import type { AuthorizationSubject, ResourceHooks } from './context.js';
import { permissionFor, realmMatchOf, type Action, type ResourceSpec } from './spec.js';

/**
 * The default decision of an action on one subject: the action's permission, evaluated by the
 * access engine with the resource realm (REALM_MATCH; null for a global row, never omitted on a
 * realm-bound resource) and the record as attributes.
 */
export async function authorizeAction(
    ctx: RequestContext,
    spec: ResourceSpec,
    hooks: ResourceHooks,
    action: Action,
    subject: AuthorizationSubject,
): Promise<void> {
    // a referenced realm is never left out: REALM_MATCH absent would neutral-pass reach (spec consumer rule 10)
    if (spec.realm === 'referenced' && subject.realmId === undefined) throw new Error(`${spec.entity}: decision without its referenced realm`);
    const fallback = async () => {
        const authorizer = await ctx.authorizer();
        await authorizer.assert(permissionFor(spec, action), {
            ...realmMatchOf(spec.realm === 'none' ? undefined : subject.realmId),
            [BuiltInPolicyType.ATTRIBUTES]: subject.record,
            ...(subject.attributeNames ? { [BuiltInPolicyType.ATTRIBUTE_NAMES]: subject.attributeNames } : {}),
        });
    };
    if (hooks.authorize) {
        await hooks.authorize(ctx, action, subject, fallback);
        return;
    }
    await fallback();
}
