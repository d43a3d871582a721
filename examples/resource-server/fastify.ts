import Fastify, { type FastifyInstance } from 'fastify';
import { BuiltInPolicyType } from '@realmgate/access';
import type { DpopBindingOptions, Verifier } from '@realmgate/adapter';
import { realmgate, replyDenied, requirePermission } from '@realmgate/adapter/fastify';
import { ORDER_READ, type OrderStore } from './orders.js';

/**
 * The orders API on Fastify. With a verifier every route but /health goes through the adapter;
 * without one (the benchmark's reference) the same routes answer without authorization.
 * `options.publicUrl`: the URL the API is reached at, which DPoP proofs name (RFC 9449 §7).
 */
export async function createFastifyResourceServer(store: OrderStore, verifier: Verifier | null, options: DpopBindingOptions = {}): Promise<FastifyInstance> {
    const app = Fastify({ logger: false });
    if (verifier) await app.register(realmgate, { verifier, ...options });

    app.get('/health', { config: { realmgate: false } }, async () => ({ status: 'ok' }));

    // authentication alone: who is calling
    app.get('/profile', async (request) => {
        if (!verifier) return { id: null, realmName: null };
        const { identity } = request.realmgate;
        return { id: identity.id, realmName: identity.realmName };
    });

    // the pre-check before the row is loaded, then the row check with its realm
    app.get<{ Params: { id: string } }>('/orders/:id', { preHandler: verifier ? requirePermission(ORDER_READ) : [] }, async (request, reply) => {
        const order = store.find(request.params.id);
        if (!order) return reply.code(404).send({ statusCode: 404, code: 'entity_not_found', message: 'no such order' });
        if (!verifier) return order;
        try {
            await request.realmgate.evaluate({ name: ORDER_READ, data: { [BuiltInPolicyType.REALM_MATCH]: order.realmId } });
        } catch (error) {
            return replyDenied(reply, error);
        }
        return order;
    });

    return app;
}
