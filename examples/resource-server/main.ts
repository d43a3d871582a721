/*
 * The example resource server: an orders API trusting Realmgate through @realmgate/adapter.
 *
 *   REALMGATE_URL=http://localhost:3000 CLIENT_ID=<id> CLIENT_SECRET=<secret> \
 *   MODE=local FRAMEWORK=fastify PORT=4000 npm run example:resource-server
 */
import { createServer } from 'node:http';
import { createVerifier, type VerificationMode } from '@realmgate/adapter';
import { createExpressResourceServer } from './express.js';
import { createFastifyResourceServer } from './fastify.js';
import { OrderStore } from './orders.js';

const env = (name: string, fallback?: string): string => {
    const value = process.env[name] ?? fallback;
    if (value === undefined) throw new Error(`${name} is required`);
    return value;
};

const store = new OrderStore();
// two orders of the realm named by ORDER_REALM_ID (a realm id), for trying the routes
if (process.env.ORDER_REALM_ID) {
    store.add({ id: 'order-1', realmId: process.env.ORDER_REALM_ID, item: 'a book' });
    store.add({ id: 'order-2', realmId: process.env.ORDER_REALM_ID, item: 'a lamp' });
}
const verifier = process.env.MODE === 'none' ? null : createVerifier({
    baseUrl: env('REALMGATE_URL', 'http://localhost:3000'),
    mode: env('MODE', 'local') as VerificationMode,
    credentials: { clientId: env('CLIENT_ID'), clientSecret: env('CLIENT_SECRET') },
    introspectionCacheSeconds: Number(env('INTROSPECTION_CACHE_SECONDS', '0')),
    ...(process.env.REALMS ? { realms: process.env.REALMS.split(',') } : {}),
});
const port = Number(env('PORT', '4000'));
if (env('FRAMEWORK', 'fastify') === 'express') {
    createServer(createExpressResourceServer(store, verifier)).listen(port, '127.0.0.1');
} else {
    await (await createFastifyResourceServer(store, verifier)).listen({ port, host: '127.0.0.1' });
}
console.log(`orders API on http://127.0.0.1:${port} (${process.env.MODE ?? 'local'} mode)`);
