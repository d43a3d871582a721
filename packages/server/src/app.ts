import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { fastifyTrustProxy, trustProxyWarning } from './config/trust-proxy.js';
import { missingEncryptionKeyWarning } from './config/production-warnings.js';
import cookie from '@fastify/cookie';
import type { Config } from './config/schema.js';
import { attachRealtime } from './http/realtime.js';
import { registerAuthConsole, registerDomains } from './http/routes/register.js';
import { runInReadScope } from './db/replication.js';
import { BODY_LIMIT } from './http/content-encoding.js';
import { registerErrorHandler } from './http/error-handler.js';
import { registerInputGuard } from './http/input-guard.js';
import { registerBodyParsers, registerRequestSettings } from './http/middleware-settings.js';
import { registerLimits } from './http/limits-plugin.js';
import { registerAuthenticationStep } from './http/authentication-step.js';
import { createOriginCheck, registerCors } from './http/cors.js';
import { registerErrorSchemas } from './http/contracts/error-body.js';
import { registerOpenApiDocument, registerOpenApiRoutes } from './http/openapi.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { registerRequestMetrics } from './http/metrics.js';
import type { ConsoleName } from './config/consoles.js';
import { registerConsoles } from './http/consoles.js';
import { bootstrap } from './provisioning/bootstrap.js';
import { provision, provisioningDirectory } from './provisioning/provision.js';
import { wire, type AppDeps, type WireOptions } from './wire.js';

/** A route as registered (collected by an onRoute hook; the OpenAPI test holds the document to them). */
export interface RegisteredRoute {
    method: string;
    url: string;
    /** hidden from the document by the plugin that owns it (explorer assets, the CORS preflight) */
    hidden: boolean;
}

export interface App {
    app: FastifyInstance;
    /** every route the app registered, HEAD routes Fastify derives from GET ones excluded */
    routes: readonly RegisteredRoute[];
    deps: AppDeps;
    close(): Promise<void>;
}

export interface AppOptions extends WireOptions {
    /** the built consoles served on this listener with the console session; none by default */
    consoles?: readonly ConsoleName[];
    /** another build of apps/console (tests) */
    consoleDistDirectory?: string;
    /**
     * What the listener serves: `api` (the default) the API with its protocol routes and auth pages;
     * `auth-console` the auth pages alone (`start console auth`, spec v1.0.0-beta.64 item 5)
     */
    surface?: 'api' | 'auth-console';
}

/** Build the service without listening (DESIGN.md habit 7); tests drive it with inject(). */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
    const deps = await wire(config, options);
    const serverOptions: FastifyServerOptions = {
        bodyLimit: BODY_LIMIT,
        trustProxy: fastifyTrustProxy(config.trustProxy),
        ajv: {
            // unknown members answer 400 with issues instead of being dropped; no type coercion of bodies
            customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: false },
        },
        ...(options.schemaController ? { schemaController: options.schemaController } : {}),
    };
    const app: FastifyInstance = options.logger ?
        Fastify({ ...serverOptions, loggerInstance: options.logger }) :
        Fastify({ ...serverOptions, logger: { level: config.logLevel } });
    deps.logTo(app.log);
    if (config.db.replication) {
        // first hook: the rest of each request runs in a scope that reads from a replica until it writes (db/replication.ts)
        app.addHook('onRequest', (_request, _reply, done) => runInReadScope(done));
    }
    // the app's own logger, so boot-time warnings (spec Authentication rule 20) reach the log
    await bootstrap(deps, app.log);
    // the files under WRITABLE_DIRECTORY_PATH/provisioning, after migrations and bootstrap
    await provision(deps, provisioningDirectory(config), app.log);
    for (const warning of [trustProxyWarning(config), missingEncryptionKeyWarning(config)]) {
        if (warning) app.log.warn(warning);
    }
    if (!config.permissionsDefaultPolicyAssignment) {
        // spec model rule 5: without the system.default binding no realm reach is checked
        app.log.warn('PERMISSIONS_DEFAULT_POLICY_ASSIGNMENT is off: permissions created from now on are not bound to system.default, so the realmScope of their grants means nothing (spec model rule 5).');
    }
    const routes: RegisteredRoute[] = [];
    app.addHook('onRoute', (route) => {
        for (const method of [route.method].flat()) {
            // Fastify derives a HEAD route from each GET one; the app declares no HEAD route of its own
            if (method === 'HEAD') continue;
            // read when asked: a later onRoute hook (the explorer's) may still change the schema
            routes.push({ method, url: route.url, get hidden() { return (route.schema as { hide?: boolean } | undefined)?.hide === true; } });
        }
    });
    // answers are serialized with JSON.stringify, as before response schemas were declared:
    // fast-json-stringify would drop every member a schema does not list; the schemas document
    // the answers (and a test holds real answers to them), they do not shape them
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    // hook order is registration order: security headers first (on every answer, errors
    // included), CORS, the limits (refusal, budget, login gate), the input guard, then the
    // authentication step (after the gate, before schema validation)
    // first, so every answer is counted, refusals and errors included
    registerRequestMetrics(app, deps.metrics);
    // a draining replica (SIGTERM, runtime/lifecycle.ts) closes each connection after its answer:
    // no idle keep-alive connection is left for the balancer to reuse once the listener closes
    app.addHook('onRequest', (_request, reply, done) => {
        if (deps.lifecycle.draining) reply.header('connection', 'close');
        done();
    });
    await registerSecurityHeaders(app, config.publicUrl);
    await registerCors(app, createOriginCheck({ db: deps.db, configured: config.corsOrigins, ...(options.corsClock ? { clock: options.corsClock } : {}) }));
    registerErrorHandler(app);
    registerInputGuard(app);
    registerLimits(app, deps.limits, deps.events);
    // parses Cookie before the authentication step reads the console session (spec Authentication 1)
    await app.register(cookie);
    // middlewareCookie and middlewareQuery (spec Limits), after the cookie plugin's own onRequest hook
    registerRequestSettings(app, { query: config.middlewareQuery, cookie: config.middlewareCookie });
    registerAuthenticationStep(app, deps);
    // middlewareBody (spec Limits): JSON, form and text parsers under their caps
    await registerBodyParsers(app, config.middlewareBody);
    registerErrorSchemas(app);
    if (options.surface === 'auth-console') {
        registerAuthConsole(app, deps);
        return appOf(app, routes, deps, options);
    }
    await registerOpenApiDocument(app, config.publicUrl);
    // entity events to sockets that may read them
    attachRealtime(app, deps, registerDomains(app, deps));
    await registerOpenApiRoutes(app, { enabled: config.docsEnabled, publicUrl: config.publicUrl });
    if (options.consoles?.length) {
        await registerConsoles(app, {
            names: options.consoles, apiUrl: config.publicUrl, consoleUrl: config.publicUrl, mode: 'session',
            ...(options.consoleDistDirectory ? { distDirectory: options.consoleDistDirectory } : {}),
        });
    }
    return appOf(app, routes, deps, options);
}

/** The built app and how it closes: the listener, then what its requests started, then the database unless the caller owns it. */
function appOf(app: FastifyInstance, routes: RegisteredRoute[], deps: AppDeps, options: AppOptions): App {
    return {
        app,
        routes,
        deps,
        async close() {
            await app.close();
            // deliveries already scheduled finish (each has a short timeout) before the database closes
            await deps.backchannelLogout.settled();
            // mail already dispatched leaves before the transport closes
            await deps.mailer?.settled();
            deps.mailer?.close();
            // event-log entries already recorded are written before the database closes (writing an event never fails or loses a request's entry)
            await deps.events.settled();
            await deps.limits.close();
            await deps.bus.close();
            if (!options.handle) await deps.handle.destroy();
        },
    };
}
