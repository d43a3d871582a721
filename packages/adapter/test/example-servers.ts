import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DpopBindingOptions, Verifier } from '../src/index.js';
import { createExpressResourceServer } from '../../../examples/resource-server/express.js';
import { createFastifyResourceServer } from '../../../examples/resource-server/fastify.js';
import type { OrderStore } from '../../../examples/resource-server/orders.js';
import { createMigratedTestDatabase } from '../../server/test/database-templates.js';
import type { TestDatabase } from '../../server/test/databases.js';
import { startServer, stopServer, type ServerProcess } from '../../server/test/server-process.js';
import type { DialectName } from '../../server/src/db/values.js';

/* The adapter suites' fixtures: a real Realmgate process, and the example resource server listening on Fastify or Express. */

/** A Realmgate process on a copy of the run's migrated template (its boot finds it up to date); `stop` drops it all. */
export async function startRealmgate(dialect: DialectName): Promise<{ server: ServerProcess; stop(): Promise<void> }> {
    const directory = await mkdtemp(join(tmpdir(), 'realmgate-adapter-'));
    let database: TestDatabase | undefined;
    let server: ServerProcess | undefined;
    const stop = async () => {
        await stopServer(server);
        await database?.drop();
        await rm(directory, { recursive: true, force: true });
    };
    try {
        database = await createMigratedTestDatabase(dialect);
        server = await startServer({ DB_TYPE: dialect, DB_URL: database.location, WRITABLE_DIRECTORY_PATH: directory });
    } catch (error) {
        await stop();
        throw error;
    }
    return { server, stop };
}

export interface ListeningExample {
    url: string;
    close(): Promise<void>;
}

/** The example orders API on one framework, listening on a free loopback port. */
export const EXAMPLE_FRAMEWORKS = {
    fastify: async (store: OrderStore, verifier: Verifier, options: DpopBindingOptions = {}): Promise<ListeningExample> => {
        const app = await createFastifyResourceServer(store, verifier, options);
        await app.listen({ port: 0, host: '127.0.0.1' });
        const address = app.server.address();
        return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, close: () => app.close() };
    },
    express: async (store: OrderStore, verifier: Verifier, options: DpopBindingOptions = {}): Promise<ListeningExample> => {
        const http: Server = createServer(createExpressResourceServer(store, verifier, options));
        await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
        const address = http.address();
        return {
            url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
            close: () => new Promise<void>((resolve) => http.close(() => resolve())),
        };
    },
};
