import type { FastifyPluginAsync, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { requestUrl, type DpopBindingOptions } from './dpop.js';
import { checkPermission, deniedError, isDeniedError, type DenialListener, type PermissionRequirement } from './respond.js';
import { createVerifier, type RealmgateAuth, type Verifier, type VerifierOptions } from './verifier.js';

declare module 'fastify' {
    interface FastifyRequest {
        /**
         * who the request acts as, set by the Realmgate plugin before any handler of its scope: a
         * request it did not authenticate never reaches one. Reading it on a public route
         * (`config: { realmgate: false }`) throws, so it is never null where it can be read.
         */
        readonly realmgate: RealmgateAuth;
    }
    interface FastifyContextConfig {
        /** false: this route of the plugin's scope is public */
        realmgate?: boolean;
    }
}

/** The plugin's options: a verifier (or the options to create one), the DPoP binding and the denial listener. */
export type RealmgatePluginOptions = ({ verifier: Verifier } | VerifierOptions) & DpopBindingOptions & {
    /** hears every denial (401, 403, 503) before the error handler answers it; `error.cause` is what failed */
    onError?: DenialListener<FastifyRequest>;
};

const AUTH = Symbol('realmgate.auth');
type Authenticated = FastifyRequest & { [AUTH]: RealmgateAuth | null };

/**
 * The Fastify plugin (`app.register(realmgate, options)`): authenticates every request of the
 * scope it is registered in (a route with `config: { realmgate: false }` is public) and sets
 * `request.realmgate`. Registered without encapsulation, as fastify-plugin does, so the hook and
 * the decorator reach the routes beside it. A refusal is thrown to Fastify: the scope's error
 * handler (`setErrorHandler`) answers it, Fastify's default one with the status, the challenge
 * headers and `{ statusCode, code, error, message }`. A DPoP-bound token's proof is checked
 * against the request's method and URL (`publicUrl`, RFC 9449 §7).
 */
export const realmgate: FastifyPluginAsync<RealmgatePluginOptions> = async (app, options) => {
    const verifier = 'verifier' in options ? options.verifier : createVerifier({ logger: app.log, ...options });
    app.decorateRequest(AUTH, null);
    app.decorateRequest('realmgate', {
        getter(this: FastifyRequest) {
            const auth = (this as Authenticated)[AUTH];
            if (!auth) throw new Error(`request.realmgate is not set on ${this.method} ${this.url}: the route is public or outside the plugin's scope`);
            return auth;
        },
    });
    app.addHook('onRequest', async (request) => {
        if (request.routeOptions.config?.realmgate === false) return;
        try {
            (request as Authenticated)[AUTH] = await verifier.verify(request.headers.authorization, {
                method: request.method,
                url: requestUrl(options, { secure: request.protocol === 'https', host: request.host, path: request.url }),
                proof: request.headers.dpop,
            });
        } catch (error) {
            throw deniedError(error);
        }
    });
    const listener = options.onError;
    if (listener) {
        app.addHook('onError', async (request, _reply, error) => {
            if (isDeniedError(error)) listener(error, request);
        });
    }
};
Object.assign(realmgate, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'realmgate' });

/** The plugin bound to a verifier: `app.register(realmgatePlugin(verifier, { publicUrl }))`. */
export function realmgatePlugin(verifier: Verifier, options: DpopBindingOptions & { onError?: DenialListener<FastifyRequest> } = {}): FastifyPluginAsync {
    const plugin: FastifyPluginAsync = (app) => realmgate(app, { ...options, verifier });
    Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'realmgate' });
    return plugin;
}

/** A preHandler that requires a permission (see PermissionRequirement for `realmOf`); a refusal goes to the error handler. */
export function requirePermission(name: string | readonly string[], requirement: PermissionRequirement<FastifyRequest> = {}): preHandlerAsyncHookHandler {
    return async function realmgatePermission(request: FastifyRequest) {
        try {
            await checkPermission(request.realmgate, request, name, requirement);
        } catch (error) {
            throw deniedError(error);
        }
    };
}

/** Hands a refusal of a later check (`auth.evaluate` on the loaded row) to the error handler, as the plugin does. */
export function replyDenied(reply: FastifyReply, error: unknown): FastifyReply {
    return reply.send(deniedError(error));
}
