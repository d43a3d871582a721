import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../wire.js';
import type { ResourceDefinition } from './resource/context.js';
import { describeResource } from './resource/describe.js';
import { registerResourceRoutes } from './resource/routes.js';
import { contextOf } from '../http/request-context.js';
import { pathsDefinition } from './paths.js';
import { permissionsDefinition } from './permissions.js';
import { realmsDefinition } from './realms.js';
import { rolesDefinition } from './roles.js';
import { scopesDefinition } from './scopes.js';
import { usersDefinition } from './users/definition.js';
import { clientsDefinition } from './clients/definition.js';
import { roleAttributesDefinition, userAttributesDefinition } from './attributes.js';
import { policiesDefinition } from './policies/definition.js';
import { permissionPoliciesDefinition } from './policies/permission-policies.js';
import { junctionDefinitions } from './junctions/definitions.js';
import { keysDefinition } from './keys/definition.js';
import { sessionsDefinition, sessionTokensDefinition } from './sessions/definition.js';
import { registerJwksRoutes } from './keys/jwks-routes.js';
import { registerTokenRoutes } from '../http/token-route.js';
import { registerDiscoveryRoutes } from '../http/discovery-route.js';
import { registerSelfIntrospectionRoute } from '../http/introspection-route.js';
import { registerAuthorizationCheckRoutes } from '../http/authorization-check-route.js';
import { registerAuthorizationCatalogRoute } from '../http/authorization-route.js';

/** Every administered resource, explicitly listed. */
export function resourceDefinitions(deps: AppDeps): ResourceDefinition[] {
    return [
        realmsDefinition(deps.secrets, deps.keys),
        rolesDefinition,
        permissionsDefinition(deps.handle.dialect),
        scopesDefinition,
        pathsDefinition,
        usersDefinition(deps),
        clientsDefinition(deps),
        userAttributesDefinition,
        roleAttributesDefinition,
        policiesDefinition(deps),
        permissionPoliciesDefinition,
        ...junctionDefinitions(deps),
        keysDefinition(deps),
        sessionsDefinition(deps),
        sessionTokensDefinition(deps),
    ];
}

/** Resolve each spec's relations to the definitions behind them (by entity name). */
export function linkRelations(definitions: ResourceDefinition[]): void {
    const byEntity = new Map(definitions.map((definition) => [definition.spec.entity, definition]));
    for (const definition of definitions) {
        const related = new Map<string, ResourceDefinition>();
        for (const [name, relation] of Object.entries(definition.spec.relations ?? {})) {
            const target = byEntity.get(relation.resource);
            if (!target) throw new Error(`${definition.spec.entity}.${name} names unknown resource ${relation.resource}`);
            related.set(name, target);
        }
        definition.related = related;
    }
}

export function registerDomains(app: FastifyInstance, deps: AppDeps): void {
    const definitions = resourceDefinitions(deps);
    linkRelations(definitions);
    for (const definition of definitions) registerResourceRoutes(app, deps, definition);
    registerJwksRoutes(app, { db: deps.db, keys: deps.keys });
    registerTokenRoutes(app, {
        token: deps.tokenEndpoint, revoke: deps.revocationEndpoint, introspect: deps.introspectionEndpoint.introspect, limits: deps.limits,
    });
    registerSelfIntrospectionRoute(app, deps);
    registerAuthorizationCheckRoutes(app, deps);
    registerAuthorizationCatalogRoute(app, deps);
    registerDiscoveryRoutes(app, { db: deps.db, publicUrl: deps.config.publicUrl });
    // bulk schema description (spec "Schema and statistics facets")
    app.get('/schemas', async (request) => {
        await contextOf(deps, request);
        return { data: definitions.map(describeResource), meta: { total: definitions.length } };
    });
}
