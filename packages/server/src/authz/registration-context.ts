import { BuiltInPolicyType, createAuthorizationEvaluator, type PolicyData } from '@realmgate/access';
import { PermissionName } from '@realmgate/core';
import { ANONYMOUS } from '../authn/actor.js';
import { forbidden } from '../errors/app-error.js';
import type { RequestAuthorizer } from './authorizer.js';
import type { CatalogCache } from './catalog-cache.js';
import type { RequestContext } from './request-context.js';

/** What an initial or registration access token lets its bearer do through the clients' service: its client, nothing else. */
const CLIENT_PERMISSIONS: ReadonlySet<string> = new Set([
    PermissionName.CLIENT_CREATE, PermissionName.CLIENT_READ, PermissionName.CLIENT_UPDATE, PermissionName.CLIENT_DELETE,
]);

/**
 * The context of a dynamic registration (RFC 7591 §3) or a registration's management (RFC 7592):
 * the caller has no identity, and the access token it presented — already verified by the
 * registration service — is its whole grant: the clients' permissions in that one realm. Every other
 * decision, and a client decision about another realm, is refused. Names resolve in the realm.
 */
export async function registrationContext(catalog: Pick<CatalogCache, 'get'>, realmId: string, request: RequestContext['request']): Promise<RequestContext> {
    const loaded = await catalog.get();
    const permits = (name: string | string[], data?: PolicyData): boolean => {
        const names = Array.isArray(name) ? name : [name];
        return names.every((one) => CLIENT_PERMISSIONS.has(one)) && data?.[BuiltInPolicyType.REALM_MATCH] === realmId;
    };
    const assert = async (name: string | string[], data?: PolicyData): Promise<void> => {
        if (!permits(name, data)) throw forbidden();
    };
    const authorizer: RequestAuthorizer = {
        actor: ANONYMOUS,
        // an evaluator without identity or grants: anything asked of it directly is denied
        evaluator: createAuthorizationEvaluator({ catalog: loaded }),
        catalog: loaded,
        grants: null,
        assert,
        assertOneOf: async (names, data) => {
            if (!names.some((one) => permits(one, data))) throw forbidden();
        },
        preAssert: assert,
        allows: permits,
        compile: () => ({ type: 'deny' }),
    };
    return { actor: ANONYMOUS, authorizer: async () => authorizer, routeRealmId: realmId, request };
}
