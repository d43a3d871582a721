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

/** Every administered resource, explicitly listed. */
export function resourceDefinitions(deps: AppDeps): ResourceDefinition[] {
    return [
        realmsDefinition(deps.secrets),
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
    ];
}

export function registerDomains(app: FastifyInstance, deps: AppDeps): void {
    const definitions = resourceDefinitions(deps);
    for (const definition of definitions) registerResourceRoutes(app, deps, definition);
    // bulk schema description (spec "Schema and statistics facets")
    app.get('/schemas', async (request) => {
        await contextOf(deps, request);
        return { data: definitions.map(describeResource), meta: { total: definitions.length } };
    });
}
