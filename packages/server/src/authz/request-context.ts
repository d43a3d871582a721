import type { Actor } from '../authn/actor.js';
import type { RequestAuthorizer } from './authorizer.js';

/** What a service needs to know about the request it serves. */
export interface RequestContext {
    actor: Actor;
    /** built on first use: loads the catalog and the actor's grants */
    authorizer(): Promise<RequestAuthorizer>;
    /** the realm of a `/realms/:realmId/…` mount (resolved id), else null */
    routeRealmId: string | null;
    request: { ip: string; method: string; path: string };
}
