import type { KeyStore } from '../keys/store.js';
import type { PasswordHasher } from '../secrets/passwords.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { SessionStore } from '../tokens/sessions.js';
import type { ResourceDeps } from './resource/deps.js';
import { createOutboundPolicy } from '../outbound/address-policy.js';
import type { ResourceDefinition } from './resource/context.js';
import { pathsDefinition } from './paths.js';
import { permissionsDefinition } from './permissions.js';
import { realmsDefinition } from './realms.js';
import { consoleRedirectUris, type ConsoleOrigins } from '../storage/console-clients.js';
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
import { eventsDefinition } from './event-log/definition.js';
import { identityProvidersDefinition } from './identity-providers/definition.js';
import { initialAccessTokensDefinition } from './initial-access-tokens/definition.js';
import { identityProviderAttributeMappingsDefinition, identityProviderRoleMappingsDefinition } from './identity-providers/mappings.js';

/** What the administered resources need, beyond the engine's own deps. */
export interface DomainDeps extends ResourceDeps {
    config: { tokenAccessMaxAge: number; tokenRefreshMaxAge: number; permissionsDefaultPolicyAssignment: boolean; outboundAllowedHosts?: string[] | undefined } & ConsoleOrigins;
    passwords: PasswordHasher;
    secrets: SecretBox;
    keys: KeyStore;
    sessions: SessionStore;
}

/** Every administered resource, explicitly listed. */
export function resourceDefinitions(domainDeps: DomainDeps): ResourceDefinition[] {
    // the URLs the server connects to are judged by the operator's OUTBOUND_ALLOWED_HOSTS
    const deps = { ...domainDeps, outbound: createOutboundPolicy(domainDeps.config.outboundAllowedHosts) };
    return [
        realmsDefinition(deps.secrets, deps.keys, deps.handle.dialect, consoleRedirectUris(deps.config)),
        rolesDefinition,
        permissionsDefinition(deps.handle.dialect, deps.config.permissionsDefaultPolicyAssignment),
        scopesDefinition,
        pathsDefinition,
        usersDefinition(deps),
        clientsDefinition(deps),
        userAttributesDefinition,
        roleAttributesDefinition,
        policiesDefinition(),
        permissionPoliciesDefinition,
        ...junctionDefinitions(deps),
        keysDefinition(deps),
        sessionsDefinition(),
        sessionTokensDefinition(),
        eventsDefinition(),
        identityProvidersDefinition(deps),
        identityProviderAttributeMappingsDefinition,
        identityProviderRoleMappingsDefinition,
        initialAccessTokensDefinition(deps),
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

