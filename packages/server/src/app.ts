import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import formbody from '@fastify/formbody';
import type { Config } from './config/schema.js';
import { registerDomains } from './http/routes/register.js';
import { registerErrorHandler } from './http/error-handler.js';
import { registerInputGuard } from './http/input-guard.js';
import { registerLimits } from './http/limits-plugin.js';
import { bootstrap } from './provisioning/bootstrap.js';
import { wire, type AppDeps, type WireOptions } from './wire.js';

export interface App {
    app: FastifyInstance;
    deps: AppDeps;
    close(): Promise<void>;
}

/** Spec Limits: request bodies are capped at 10 MB after decompression. */
const BODY_LIMIT = 10 * 1024 * 1024;

/** Build the service without listening (DESIGN.md habit 7); tests drive it with inject(). */
export async function createApp(config: Config, options: WireOptions = {}): Promise<App> {
    const deps = await wire(config, options);
    const serverOptions: FastifyServerOptions = {
        bodyLimit: BODY_LIMIT,
        trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
        ajv: {
            // unknown members answer 400 with issues instead of being dropped; no type coercion of bodies
            customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true, useDefaults: false },
        },
    };
    const app: FastifyInstance = options.logger ?
        Fastify({ ...serverOptions, loggerInstance: options.logger }) :
        Fastify({ ...serverOptions, logger: { level: config.logLevel } });
    // the app's own logger, so boot-time warnings (spec Authentication rule 20) reach the log
    await bootstrap(deps, app.log);
    registerErrorHandler(app);
    registerInputGuard(app);
    registerLimits(app, deps.limits);
    await app.register(formbody);
    registerDomains(app, deps);
    return {
        app,
        deps,
        async close() {
            await app.close();
            await deps.limits.close();
            if (!options.handle) await deps.handle.destroy();
        },
    };
}
