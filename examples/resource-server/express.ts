import express, { type Express, type Request } from 'express';
import { BuiltInPolicyType } from '@realmgate/access';
import { deniedError, type DpopBindingOptions, type Verifier } from '@realmgate/adapter';
import { realmgateErrorHandler, realmgateMiddleware, requirePermission } from '@realmgate/adapter/express';
import { ORDER_READ, type OrderStore } from './orders.js';

/**
 * The same orders API on Express; here the row's realm is resolved before the handler (`realmOf`).
 * `options.publicUrl`: the URL the API is reached at, which DPoP proofs name (RFC 9449 §7).
 */
export function createExpressResourceServer(store: OrderStore, verifier: Verifier | null, options: DpopBindingOptions = {}): Express {
    const app = express();
    app.get('/health', (_request, response) => {
        response.json({ status: 'ok' });
    });
    if (verifier) app.use(realmgateMiddleware(verifier, options));

    app.get('/profile', (request, response) => {
        const identity = request.realmgate?.identity;
        response.json({ id: identity?.id ?? null, realmName: identity?.realmName ?? null });
    });

    const orderRealm = (request: Request) => store.find(String(request.params.id))?.realmId ?? null;
    const guard = verifier ? [requirePermission<Request>(ORDER_READ, { realmOf: orderRealm })] : [];
    app.get('/orders/:id', ...guard, (request, response) => {
        const order = store.find(String(request.params.id));
        if (!order) {
            response.status(404).json({ statusCode: 404, code: 'entity_not_found', message: 'no such order' });
            return;
        }
        response.json(order);
    });

    // the same check inside a handler, for code that loads the row itself
    app.get('/orders/:id/item', (request, response, next) => {
        const order = store.find(String(request.params.id));
        const auth = request.realmgate;
        const decided = auth ? auth.evaluate({ name: ORDER_READ, data: { [BuiltInPolicyType.REALM_MATCH]: order?.realmId ?? null } }) : Promise.resolve();
        decided.then(() => {
            response.json({ item: order?.item ?? null });
        }, (error: unknown) => next(deniedError(error)));
    });
    // the adapter's refusals answer with the API.md §1 error body; any other error goes on to Express
    app.use(realmgateErrorHandler());
    return app;
}
