import type { AuthorizationEvaluator } from '@realmgate/access';
import type { RequestAuthorizer } from './authorizer.js';
import type { RequestContext } from './request-context.js';
import type { CatalogCache } from './catalog-cache.js';

/**
 * The deployment itself acting, with no caller to authorize: provisioning files (spec Versioning
 * "provisioning createOnly") are written by whoever controls the server's files, which is more than
 * any grant can give, so every decision allows. Nothing reachable from HTTP builds this context;
 * only the boot and the `provision` command do.
 */
const ALLOW_ALL: AuthorizationEvaluator = {
    identity: null,
    evaluate: async () => undefined,
    evaluateOneOf: async () => undefined,
    preEvaluate: async () => undefined,
    preEvaluateOneOf: async () => undefined,
    allows: () => true,
    preAllows: () => true,
    compile: () => ({ type: 'allow' }),
};

/** The authorizer of the system context; the catalog is loaded once, before any write transaction opens. */
export async function createSystemAuthorizer(catalog: Pick<CatalogCache, 'get'>): Promise<RequestAuthorizer> {
    const loaded = await catalog.get();
    const actor = { identity: null, tokenClientId: null, method: 'none' as const };
    return {
        actor,
        evaluator: ALLOW_ALL,
        catalog: loaded,
        grants: null,
        assert: async () => undefined,
        assertOneOf: async () => undefined,
        preAssert: async () => undefined,
        allows: () => true,
        compile: () => ({ type: 'allow' }),
    };
}

/**
 * A system context resolving names in `realmId` (as a `/realms/:realmId/…` mount does), or among
 * global rows when null. `source` names what acted (a provisioning file), recorded on events.
 */
export function systemContext(authorizer: RequestAuthorizer, realmId: string | null, source: string): RequestContext {
    return {
        actor: authorizer.actor,
        authorizer: async () => authorizer,
        routeRealmId: realmId,
        request: { ip: '', method: 'PROVISION', path: source },
    };
}
