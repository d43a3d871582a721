import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createApp, type App, type AppOptions } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import type { Config, DeepPartial } from '../src/config/schema.js';
import type { DialectName } from '../src/db/values.js';
import type { TestDatabase } from './databases.js';
import { createMigratedTestDatabase } from './database-templates.js';
import { sharedSchemaController } from './shared-validators.js';
import { LOOPBACK_UPSTREAMS } from './loopback-upstreams.js';

/*
 * The test fixtures, one way each (every server test on every dialect: databases.ts):
 * - an app: `const app = useTestApp(dialect)` inside `describeEachDialect(name, (dialect) => …)`
 *   gives the real app on a fresh database of that dialect with the production migrations and the
 *   bootstrap admin (ADMIN; requests go as the admin unless `as` says otherwise), started before the
 *   suite's tests and dropped after them. `startTestApp` is for a test that needs an app of its own.
 * - a realm: `createRealm` of actors.ts (rows written directly, named) or of grant-fixtures.ts
 *   (through the API, a unique name).
 * - users and clients: `createUser` / `createClient` of identities.ts (through the API, with a
 *   password or secret and a Basic header); `insertUser` / `insertClient` / `actorWith` of
 *   grant-fixtures.ts and `createActor` of actors.ts (rows written directly, holding exactly the
 *   grants a test names).
 * - tokens: `login` / `refresh` of sessions.ts (the password grant), `accessToken` of
 *   check-fixtures.ts (any /token request).
 */

export const ADMIN = { name: 'admin', password: 'start123' };


export interface TestApp extends App {
    database: TestDatabase;
    /** `Authorization: Basic …` for a name (or id) and password */
    basic(name: string, password: string): string;
    /** inject as the bootstrap admin unless headers.authorization is given (null: anonymous) */
    request(options: InjectOptions & { as?: string | null }): Promise<LightMyRequestResponse>;
    /** a JSON request that expects `status` and returns the parsed body */
    json<T = Record<string, unknown>>(options: InjectOptions & { as?: string | null }, status?: number): Promise<T>;
    /** close the app and drop its database */
    dispose(): Promise<void>;
}

export function basicHeader(name: string, password: string): string {
    return `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
}

/** The real app on a fresh, uniquely named database of one dialect, with the production migrations. */
export async function startTestApp(dialect: DialectName, overrides: DeepPartial<Config> = {}, wireOptions: Omit<AppOptions, 'handle'> = {}): Promise<TestApp> {
    // a copy of the run's migrated template (database-templates.ts): the app's own migrateToLatest finds it up to date
    const database = await createMigratedTestDatabase(dialect);
    const config = loadConfig({}, {
        logLevel: 'silent',
        env: 'test',
        writableDirectoryPath: join(tmpdir(), 'realmgate-test'),
        // the handle is passed in; the location only satisfies the configuration's own checks
        db: { type: dialect, ...(dialect === 'sqlite' ? {} : { url: database.location }) },
        // the harness's upstreams (OIDC provider, slapd, back-channel receivers) listen on loopback;
        // a test of the refusals sets its own list (empty)
        outboundAllowedHosts: LOOPBACK_UPSTREAMS,
        ...overrides,
    });
    let app: App;
    try {
        app = await createApp(config, { handle: database, bcryptCost: 4, schemaController: sharedSchemaController, ...wireOptions });
    } catch (error) {
        await database.drop();
        throw error;
    }
    return asTestApp(app, database, async () => {
        await app.close();
        await database.drop();
    });
}

/** The request helpers of a test app around a built one. */
function asTestApp(app: App, database: TestDatabase, dispose: () => Promise<void>): TestApp {
    const adminHeader = basicHeader(ADMIN.name, ADMIN.password);
    const request = (options: InjectOptions & { as?: string | null }) => {
        const { as, ...rest } = options;
        const headers = { ...(rest.headers ?? {}) } as Record<string, string>;
        if (as === undefined && !headers.authorization) headers.authorization = adminHeader;
        else if (typeof as === 'string') headers.authorization = as;
        return app.app.inject({ ...rest, headers });
    };
    return {
        ...app,
        database,
        basic: basicHeader,
        request,
        async json<T>(options: InjectOptions & { as?: string | null }, status?: number) {
            const response = await request(options);
            if (status !== undefined && response.statusCode !== status) {
                throw new Error(`${options.method ?? 'GET'} ${options.url} answered ${response.statusCode}, expected ${status}: ${response.body}`);
            }
            return response.json() as T;
        },
        dispose,
    };
}

/**
 * A second app on another app's database (a split deployment: `start console auth` beside the
 * API), built with its own options; `dispose` closes it and leaves the database to its owner.
 */
export async function startAppBeside(owner: TestApp, options: Omit<AppOptions, 'handle'>): Promise<TestApp> {
    const app = await createApp(owner.deps.config, { handle: owner.database, bcryptCost: 4, schemaController: sharedSchemaController, ...options });
    return asTestApp(app, owner.database, () => app.close());
}

/**
 * The suite's app (see the top of this file): registers the `beforeAll` that starts it and the
 * `afterAll` that disposes of it, and returns a stand-in that forwards to the started app. Call it
 * before the suite's own hooks, so they run with the app started.
 */
export function useTestApp(dialect: DialectName, overrides: DeepPartial<Config> = {}, wireOptions: Omit<AppOptions, 'handle'> = {}): TestApp {
    let started: TestApp | undefined;
    beforeAll(async () => {
        started = await startTestApp(dialect, overrides, wireOptions);
    });
    afterAll(async () => started?.dispose());
    return new Proxy({} as TestApp, {
        get(_target, key) {
            if (!started) throw new Error(`the suite app was used before its beforeAll started it (reading ${String(key)})`);
            const value: unknown = Reflect.get(started, key);
            return typeof value === 'function' ? value.bind(started) : value;
        },
    });
}
