import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import { describeResource } from '../../domains/resource/describe.js';
import { describeAuthenticators } from '../../domains/authenticators/vocabulary.js';
import { createSecretStore } from '../../domains/clients/secret.js';
import { registerResourceRoutes } from './resource.js';
import { registerJwksRoutes } from './jwks.js';
import { registerTokenRoutes } from './token.js';
import { registerPushedAuthorizationRoutes } from './pushed-authorization.js';
import { registerDeviceRoutes } from './device.js';
import { registerDevicePageRoutes } from './device-page.js';
import { registerFederatedSignInRoutes } from './federated-sign-in.js';
import { registerDiscoveryRoutes } from './discovery.js';
import { registerUserinfoRoutes } from './userinfo.js';
import { registerSelfIntrospectionRoute } from './introspection.js';
import { registerAuthorizationCheckRoutes } from './authorization-check.js';
import { registerAuthorizationCatalogRoute } from './authorization.js';
import { registerClientRoutes } from './clients.js';
import { registerUserRoutes } from './users.js';
import { registerSessionRoutes, registerSessionTokenRoutes } from './sessions.js';
import { registerExpandedRoute } from './policies.js';
import { registerAssetRoutes } from './assets.js';
import { registerBrandingRoute } from './branding.js';
import { registerAuthorizeRoutes } from './authorize.js';
import { registerLogoutRoutes } from './logout.js';
import { registerUserAuthenticatorRoutes } from './user-authenticators.js';
import { registerPasskeyRegistrationRoutes } from './passkey-registration.js';
import { registerInitialAccessTokenRoutes } from './initial-access-tokens.js';
import { registerClientRegistrationRoutes } from './client-registration.js';
import { registerOperationsRoutes } from './operations.js';
import { registerAccountRoutes } from './account.js';
import { registerAccountPages } from './account-pages.js';
import { registerAccountLinkRoutes } from './account-links.js';
import { linkRelations, resourceDefinitions } from '../../domains/registry.js';

type ExtraRoutes = (app: FastifyInstance, deps: AppDeps, definition: ResourceDefinition, prefix: string) => void;

/**
 * Routes a resource has beyond the generic ones (`@me`, secret rotation, session revocation, the
 * expanded policy tree), keyed by collection and mounted under each of the resource's prefixes.
 */
const extraRoutes: Readonly<Record<string, ExtraRoutes>> = {
    clients: (app, deps, definition, prefix) => registerClientRoutes(app, { ...deps, store: createSecretStore(deps) }, definition, prefix),
    users: registerUserRoutes,
    sessions: registerSessionRoutes,
    'session-tokens': registerSessionTokenRoutes,
    policies: (app, deps, _definition, prefix) => registerExpandedRoute(app, deps, prefix),
    'initial-access-tokens': registerInitialAccessTokenRoutes,
};

/** Registers every route; answers the administered resources' definitions (the realtime bus delivers their events). */
export function registerDomains(app: FastifyInstance, deps: AppDeps): readonly ResourceDefinition[] {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const definitions = resourceDefinitions(deps);
    linkRelations(definitions);
    for (const definition of definitions) {
        const extra = extraRoutes[definition.spec.collection];
        registerResourceRoutes(app, deps, definition, extra ? (prefix) => extra(app, deps, definition, prefix) : undefined);
    }
    registerJwksRoutes(app, { db: deps.db, keys: deps.keys });
    // RFC 7591 / RFC 7592: registered clients are created and managed through the clients' resource
    const clients = definitions.find((definition) => definition.spec.collection === 'clients')!;
    registerClientRegistrationRoutes(app, { ...deps, publicUrl: deps.config.publicUrl }, clients);
    registerTokenRoutes(app, {
        token: deps.tokenEndpoint, revoke: deps.revocationEndpoint, introspect: deps.introspectionEndpoint.introspect, limits: deps.limits,
        onIssued: deps.metrics.tokenIssued,
    });
    registerPushedAuthorizationRoutes(app, { endpoint: deps.pushedAuthorizationEndpoint, limits: deps.limits });
    // /health, /health/ready, /metrics
    registerOperationsRoutes(app, deps);
    registerDeviceRoutes(app, { endpoint: deps.deviceAuthorizationEndpoint, verification: deps.deviceVerification, limits: deps.limits });
    registerSelfIntrospectionRoute(app, deps);
    registerUserinfoRoutes(app, { userinfo: deps.userinfoEndpoint, limits: deps.limits });
    registerUserAuthenticatorRoutes(app, deps);
    registerPasskeyRegistrationRoutes(app, deps);
    // the account's consents and upstream links
    registerAccountLinkRoutes(app, deps);
    registerAuthorizationCheckRoutes(app, deps);
    registerAuthorizationCatalogRoute(app, deps);
    registerDiscoveryRoutes(app, { db: deps.db, publicUrl: deps.config.publicUrl, mtlsPublicUrl: deps.config.mtlsPublicUrl });
    registerAuthPages(app, deps);
    // activation and recovery by mail, and the pages the mails link to
    registerAccountRoutes(app, deps);
    registerAccountPages(app, deps);
    // bulk schema description (spec "Schema and statistics facets")
    // QUERY_SCHEMA_DISCOVERY_ENABLED=false: not registered, so GET /schemas answers 404 (spec Versioning beta.67 item 1)
    if (deps.config.querySchemaDiscoveryEnabled) routes.get('/schemas', contract({
        auth: 'required', tags: ['schemas'], summary: 'The query vocabulary of every collection',
        response: {
            200: Type.Object({ data: Type.Array(Type.Object({}, { additionalProperties: true })), meta: Type.Object({ total: Type.Integer({ minimum: 0 }) }) }, {
                description: 'One description per resource.',
            }),
        },
    }), async () => {
        const data = [...definitions.map(describeResource), describeAuthenticators()];
        return { data, meta: { total: data.length } };
    });
    return definitions;
}

/**
 * The auth console: browser sign-in, consent and RP-initiated logout at the authorization endpoint
 * (RFC 6749 §3.1, OpenID Connect RP-Initiated Logout), the device verification page (RFC 8628 §3.3), sign-in through an upstream provider,
 * and the pages' assets.
 */
function registerAuthPages(app: FastifyInstance, deps: AppDeps): void {
    registerAuthorizeRoutes(app, deps);
    registerLogoutRoutes(app, deps);
    registerDevicePageRoutes(app, deps);
    registerFederatedSignInRoutes(app, deps);
    registerAssetRoutes(app, deps.views);
    registerBrandingRoute(app, deps.db);
}

/**
 * What `start console auth` serves on its own port (spec v1.0.0-beta.64 item 5: one console
 * service): the auth pages and the process's health probes, none of the API. A proxy in front of a
 * split deployment routes /authorize, /logout and /device here and the rest to the API, under one
 * PUBLIC_URL (the issuer the pages name).
 */
export function registerAuthConsole(app: FastifyInstance, deps: AppDeps): void {
    registerOperationsRoutes(app, deps);
    registerAuthPages(app, deps);
}
