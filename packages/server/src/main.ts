import { createApp, type App } from './app.js';
import type { Config } from './config/schema.js';

/** loadConfig() → createApp() → listen(); nothing else (DESIGN.md §3). */
export async function startServer(config: Config): Promise<App> {
    const app = await createApp(config);
    const shutdown = async () => {
        await app.close();
        process.exit(0);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    await app.app.listen({ port: config.port, host: config.host });
    return app;
}
