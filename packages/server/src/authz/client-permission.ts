import type { PermissionName } from '@realmgate/core';
import { createRequestAuthorizer, type AuthorizerDeps } from './authorizer.js';

/** A client that proved itself at a protocol endpoint, as the engine sees it. */
export interface AuthenticatedClient {
    id: string;
    realmId: string;
    realmName: string;
}

/**
 * Whether the engine grants an authenticated client `permission` over `realmId` — its own grants
 * (client permissions and roles) at their realm reach, with their policies, exactly as a request
 * of that client's would be decided: the client acts as itself, never narrowed by a token.
 */
export async function clientHoldsPermission(deps: AuthorizerDeps, client: AuthenticatedClient, permission: PermissionName, realmId: string): Promise<boolean> {
    const authorizer = await createRequestAuthorizer(deps, {
        identity: { id: client.id, type: 'client', realmId: client.realmId, realmName: client.realmName, clientId: client.id },
        tokenClientId: null,
        method: 'basic',
    });
    return authorizer.allows(permission, { realmMatch: realmId });
}
