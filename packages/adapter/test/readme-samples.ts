/*
 * The adapter guide's samples (docs/guide/adapter.md), as written there: the root `tsc` checks
 * them under `strict`, so a sample that stops compiling fails the type check. Never run.
 */

// ---- sample: Fastify plugin ----
import Fastify from 'fastify';
import { BuiltInPolicyType } from '@realmgate/access';
import { realmgate, replyDenied, requirePermission } from '@realmgate/adapter/fastify';

const orders = new Map([['order-1', { id: 'order-1', realmId: '<acme realm id>', item: 'a book' }]]);

const app = Fastify({ logger: true });
await app.register(realmgate, {
    baseUrl: 'http://localhost:3000',
    mode: 'local', // or 'remote'
    credentials: { clientId: '<client id>', clientSecret: '<secret>' },
    realms: ['acme'], // optional: refuse tokens of any other realm (names or ids)
    audience: 'https://orders.example', // optional: refuse tokens narrowed to another resource server
    clockToleranceSeconds: 5, // optional: clock skew allowed on exp/nbf (local mode)
    onError: (error, request) => request.log.warn({ cause: error.cause }, error.message),
});
app.get('/health', { config: { realmgate: false } }, async () => ({ status: 'ok' }));
app.get('/profile', async (request) => request.realmgate.identity);
// the pre-check before the row is loaded (preEvaluate), then the row check with its realm
app.get<{ Params: { id: string } }>('/orders/:id', { preHandler: requirePermission('order_read') }, async (request, reply) => {
    const order = orders.get(request.params.id);
    if (!order) return reply.code(404).send({ message: 'no such order' });
    try {
        await request.realmgate.evaluate({ name: 'order_read', data: { [BuiltInPolicyType.REALM_MATCH]: order.realmId } });
    } catch (error) {
        return replyDenied(reply, error);
    }
    return order;
});
await app.listen({ port: 4000 });

// ---- sample: Express middleware ----
import express, { type Request } from 'express';
import { createVerifier } from '@realmgate/adapter';
import { realmgateErrorHandler, realmgateMiddleware, requirePermission as permission } from '@realmgate/adapter/express';

const verifier = createVerifier({
    baseUrl: 'http://localhost:3000',
    mode: 'local',
    credentials: { clientId: '<client id>', clientSecret: '<secret>' },
});
const server = express();
server.use(realmgateMiddleware(verifier, { onError: (error) => console.warn(error.message, error.cause) }));
// realmOf reads the row's realm before the handler; the type argument names the route's params
server.get('/orders/:id', permission<Request<{ id: string }>>('order_read', { realmOf: (req) => orders.get(req.params.id)?.realmId ?? null }), (req, res) => {
    res.json({ order: orders.get(req.params.id), caller: req.realmgate?.identity.id });
});
server.use(realmgateErrorHandler()); // refusals answer with the JSON error body
server.listen(4001);
