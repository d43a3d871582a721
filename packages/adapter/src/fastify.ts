import type { FastifyPluginAsync, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { requestUrl, type DpopBindingOptions } from './dpop.js';
import { checkPermission, denial, type PermissionRequirement } from './respond.js';
import type { RealmgateAuth, Verifier } from './verifier.js';

declare module 'fastify' {
    interface FastifyRequest {
        /** set by the Realmgate plugin for every request of its scope */
        realmgate: RealmgateAuth | null;
    }
    interface FastifyContextConfig {
        /** false: this route of the plugin's scope is public */
        realmgate?: boolean;
    }
}

function send(reply: FastifyReply, error: unknown): FastifyReply {
    const answer = denial(error);
    return reply.code(answer.statusCode).headers(answer.headers).send(answer.body);
}

/**
 * The Fastify plugin: authenticates every request of the scope it is registered in (a route with
 * `config: { realmgate: false }` is public) and sets `request.realmgate`. Registered without
 * encapsulation, like fastify-plugin does, so the hook reaches the routes beside it. A DPoP-bound
 * token's proof is checked against the request's method and URL (`options.publicUrl`, RFC 9449 §7).
 */
export function realmgatePlugin(verifier: Verifier, options: DpopBindingOptions = {}): FastifyPluginAsync {
    const plugin: FastifyPluginAsync = async (app) => {
        app.decorateRequest('realmgate', null);
        app.addHook('onRequest', async (request, reply) => {
            if (request.routeOptions.config?.realmgate === false) return;
            try {
                request.realmgate = await verifier.verify(request.headers.authorization, {
                    method: request.method,
                    url: requestUrl(options, { secure: request.protocol === 'https', host: request.host, path: request.url }),
                    proof: request.headers.dpop,
                });
            } catch (error) {
                return send(reply, error);
            }
        });
    };
    Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('fastify.display-name')]: 'realmgate' });
    return plugin;
}

/** A preHandler that requires a permission (see PermissionRequirement for `realmOf`). */
export function requirePermission(name: string | readonly string[], requirement: PermissionRequirement<FastifyRequest> = {}): preHandlerAsyncHookHandler {
    return async function realmgatePermission(request: FastifyRequest, reply: FastifyReply) {
        try {
            if (!request.realmgate) throw new Error('the realmgate plugin did not run for this route');
            await checkPermission(request.realmgate, request, name, requirement);
        } catch (error) {
            return send(reply, error);
        }
    };
}

/** Sends the adapter's denial for an error of a later check (`auth.evaluate` on the loaded row). */
export function replyDenied(reply: FastifyReply, error: unknown): FastifyReply {
    return send(reply, error);
}
