import { deployedStandaloneConsoleUrl, standaloneConsoleUrl } from './consoles.js';
import { describe, expect, it } from 'vitest';
import { ConfigError, decodeSecretsEncryptionKey, loadConfig } from './load.js';
import { CONFIG_KEYS, describeConfig } from './schema.js';
import type { ConfigKey } from './schema.js';

const KEYS = CONFIG_KEYS as readonly ConfigKey[];

function valueAt(tree: unknown, path: string): unknown {
    return path.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], tree);
}

/** A valid non-default value per variable and what it loads as; the test below demands one per table row. */
const SAMPLES: Record<string, [string, unknown]> = {
    NODE_ENV: ['production', 'production'],
    PORT: ['8080', 8080],
    HOST: ['127.0.0.1', '127.0.0.1'],
    PUBLIC_URL: ['https://auth.example.com/base/', 'https://auth.example.com/base'],
    WRITABLE_DIRECTORY_PATH: ['/var/lib/realmgate', '/var/lib/realmgate'],
    DB_TYPE: ['mysql', 'mysql'],
    DB_URL: ['mysql://root@db:3306/app', 'mysql://root@db:3306/app'],
    DB_HOST: ['db', 'db'],
    DB_PORT: ['5433', 5433],
    DB_USERNAME: ['app', 'app'],
    DB_PASSWORD: ['s3cret', 's3cret'],
    DB_DATABASE: ['realmgate', 'realmgate'],
    DB_POOL_SIZE: ['32', 32],
    DB_ASYNCHRONOUS_COMMIT: ['false', false],
    DB_NAMED_STATEMENTS: ['0', false],
    DB_BUS_URL: ['postgres://realmgate@db.internal:5432/realmgate', 'postgres://realmgate@db.internal:5432/realmgate'],
    REDIS_URL: ['redis://cache:6379/0', 'redis://cache:6379/0'],
    SMTP_URL: ['smtps://mail.example.com:465', 'smtps://mail.example.com:465'],
    USER_ADMIN_NAME: ['root', 'root'],
    USER_ADMIN_PASSWORD: ['other-password', 'other-password'],
    USER_ADMIN_ENABLED: ['false', false],
    SECRETS_ENCRYPTION_KEY: ['ab'.repeat(32), 'ab'.repeat(32)],
    TOKEN_ACCESS_MAX_AGE: ['60', 60],
    TOKEN_REFRESH_MAX_AGE: ['3600', 3600],
    WORKER_ENABLED: ['0', false],
    WORKER_PORT: ['3001', 3001],
    CONSOLE_PORT: ['3002', 3002],
    CONSOLE_AUTH_PORT: ['3003', 3003],
    CONSOLE_PUBLIC_URL: ['https://console.example/', 'https://console.example'],
    METRICS_ENABLED: ['false', false],
    METRICS_TOKEN: ['scrape-token', 'scrape-token'],
    SHUTDOWN_DRAIN_MS: ['0', 0],
    EVENT_LOG_RETENTION_DAYS: ['30', 30],
    EVENT_LOG_AGGREGATE_RETENTION_DAYS: ['365', 365],
    MIGRATION_ENABLED: ['FALSE', false],
    TRUST_PROXY: ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8,127.0.0.1'],
    CORS_ORIGINS: ['https://app.example https://console.example', 'https://app.example https://console.example'],
    OUTBOUND_ALLOWED_HOSTS: ['10.0.0.0/8, LDAP.internal,::1', ['10.0.0.0/8', 'ldap.internal', '::1']],
    AUTH_CONSOLE_PATH: ['./console/index.js', './console/index.js'],
    RATE_LIMIT_USER_MAX: ['10', 10],
    RATE_LIMIT_CLIENT_MAX: ['20', 20],
    RATE_LIMIT_ANONYMOUS_MAX: ['30', 30],
    CACHES: ['on', 'on'],
    HEAP_GROWING_PERCENT: ['0', 0],
    LOG_LEVEL: ['debug', 'debug'],
    CONFIG_FILE: ['/etc/realmgate/config.yaml', '/etc/realmgate/config.yaml'],
    DB_REPLICATION: ['mysql://ro@replica-1/app, mariadb://ro@replica-2/app', { read: ['mysql://ro@replica-1/app', 'mariadb://ro@replica-2/app'] }],
    PERMISSIONS_DEFAULT_POLICY_ASSIGNMENT: ['false', false],
    QUERY_SCHEMA_DISCOVERY_ENABLED: ['false', false],
    DOCS_ENABLED: ['false', false],
    USER_AUTH_BASIC: ['0', false],
    MTLS_PUBLIC_URL: ['https://mtls.auth.example.com/', 'https://mtls.auth.example.com'],
    DPOP_NONCE_REQUIRED: ['true', true],
    DPOP_NONCE_SECRET: ['a shared nonce secret', 'a shared nonce secret'],
    MIDDLEWARE_BODY: ['{"json":{"limit":"1mb"},"text":false}', { json: { limit: '1mb' }, text: false }],
    MIDDLEWARE_COOKIE: ['false', false],
    MIDDLEWARE_QUERY: ['{"depth":2,"arrayLimit":10}', { depth: 2, arrayLimit: 10 }],
    MIDDLEWARE_RATE_LIMIT: ['{"max":50}', { max: 50 }],
};

function expectConfigError(env: Record<string, string>, key: string, fragment: RegExp): ConfigError {
    try {
        loadConfig(env);
    } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        const configError = error as ConfigError;
        expect(configError.code).toBe('config_invalid');
        expect(configError.key).toBe(key);
        expect(configError.message).toContain(key);
        expect(configError.message).toMatch(fragment);
        return configError;
    }
    throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('config key table and loader stay in step', () => {
    it('every default in the table is what the loader produces from an empty environment', () => {
        const config = loadConfig({});
        for (const entry of KEYS) {
            const value = valueAt(config, entry.key);
            if (entry.default === null) expect(value, entry.env).toBeUndefined();
            else expect(String(value), entry.env).toBe(entry.default.replace('$CONSOLE_PORT', '3000').replace('$PORT', '3000'));
        }
        expect(config.publicUrl).toBe('http://localhost:3000');
        expect(config.worker.port).toBe(3000);
        // a standalone console follows PORT, and is reached on its own port unless CONSOLE_PUBLIC_URL says otherwise;
        // the auth console follows CONSOLE_PORT
        expect(config.console).toEqual({ port: 3000, publicUrl: undefined, authPort: 3000 });
        expect(loadConfig({ CONSOLE_PORT: '3002' }).console).toEqual({ port: 3002, publicUrl: undefined, authPort: 3002 });
        expect(standaloneConsoleUrl(config)).toBe('http://localhost:3000');
        expect(standaloneConsoleUrl(loadConfig({ CONSOLE_PORT: '3002' }))).toBe('http://localhost:3002');
        // registered beside PUBLIC_URL only when a standalone console is deployed
        expect(deployedStandaloneConsoleUrl(config)).toBeUndefined();
        expect(deployedStandaloneConsoleUrl(loadConfig({ CONSOLE_PORT: '3002' }))).toBe('http://localhost:3002');
        expect(deployedStandaloneConsoleUrl(loadConfig({ CONSOLE_PUBLIC_URL: 'https://console.example' }))).toBe('https://console.example');
        expect(config.env).toBe('development');
    });

    it('every variable in the table is read by the loader into its key', () => {
        expect(Object.keys(SAMPLES).sort()).toEqual(KEYS.map((entry) => entry.env).sort());
        for (const entry of KEYS) {
            const [raw, expected] = SAMPLES[entry.env]!;
            const env: Record<string, string> = { [entry.env]: raw };
            if (entry.env === 'DB_TYPE') env.DB_HOST = 'db';
            if (entry.env === 'DB_URL') env.DB_TYPE = 'mysql';
            if (entry.env === 'DB_REPLICATION') Object.assign(env, { DB_TYPE: 'mysql', DB_HOST: 'primary' });
            if (entry.env === 'DB_BUS_URL') Object.assign(env, { DB_TYPE: 'postgres', DB_HOST: 'pooler' });
            expect(valueAt(loadConfig(env), entry.key), entry.env).toEqual(expected);
        }
    });

    it('keys and variables are unique, and describeConfig lists each', () => {
        expect(new Set(KEYS.map((entry) => entry.key)).size).toBe(KEYS.length);
        expect(new Set(KEYS.map((entry) => entry.env)).size).toBe(KEYS.length);
        const markdown = describeConfig();
        expect(markdown.split('\n')[0]).toBe('| variable | key | default | meaning |');
        for (const entry of KEYS) expect(markdown).toContain(`| \`${entry.env}\` | \`${entry.key}\` |`);
    });
});

describe('loadConfig', () => {
    it('derived defaults follow PORT, from the environment or an override', () => {
        expect(loadConfig({ PORT: '4000' })).toMatchObject({ publicUrl: 'http://localhost:4000', worker: { port: 4000 } });
        expect(loadConfig({ PORT: '4000' }, { port: 0 })).toMatchObject({ port: 0, publicUrl: 'http://localhost:0', worker: { port: 0 } });
    });

    it('overrides win over the environment, including an explicit undefined', () => {
        const config = loadConfig(
            { PORT: 'not-a-port', REDIS_URL: 'redis://cache', LOG_LEVEL: 'debug' },
            { port: 1234, redisUrl: undefined, db: { type: 'postgres', url: 'postgres://x@y/z' } },
        );
        expect(config.port).toBe(1234);
        expect(config.redisUrl).toBeUndefined();
        expect(config.logLevel).toBe('debug');
        expect(config.db).toMatchObject({ type: 'postgres', url: 'postgres://x@y/z', host: undefined });
    });

    it('empty variables count as unset', () => {
        expect(loadConfig({ PORT: '', USER_ADMIN_ENABLED: '' })).toMatchObject({ port: 3000, userAdmin: { enabled: true } });
    });

    it('USER_ADMIN_ENABLED is strict: only true and false', () => {
        expect(loadConfig({ USER_ADMIN_ENABLED: 'false' }).userAdmin.enabled).toBe(false);
        for (const raw of ['1', '0', 'TRUE', 'yes', 'False', ' true']) {
            expectConfigError({ USER_ADMIN_ENABLED: raw }, 'USER_ADMIN_ENABLED', /exactly `true` or `false`/);
        }
    });

    it('other booleans accept true/false/1/0 in any case', () => {
        expect(loadConfig({ WORKER_ENABLED: 'TRUE', MIGRATION_ENABLED: '0' })).toMatchObject({ worker: { enabled: true }, migrationEnabled: false });
        expectConfigError({ MIGRATION_ENABLED: 'yes' }, 'MIGRATION_ENABLED', /`true` or `false`/);
    });

    it('ports are integers from 1 to 65535', () => {
        for (const raw of ['0', '65536', '3000.5', '-1', 'abc', '1e3']) expectConfigError({ PORT: raw }, 'PORT', /integer from 1 to 65535/);
        expectConfigError({ WORKER_PORT: '70000' }, 'WORKER_PORT', /1 to 65535/);
        expectConfigError({ DB_PORT: 'x' }, 'DB_PORT', /1 to 65535/);
        expect(loadConfig({ PORT: '65535' }).port).toBe(65535);
    });

    it('enumerations name their values', () => {
        expectConfigError({ DB_TYPE: 'oracle' }, 'DB_TYPE', /`sqlite`, `postgres`, `mysql`/);
        expectConfigError({ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', /`info`/);
        expectConfigError({ NODE_ENV: 'staging' }, 'NODE_ENV', /`production`, `development`, `test`/);
    });

    it('SHUTDOWN_DRAIN_MS: an integer from 0', () => {
        expect(loadConfig({ SHUTDOWN_DRAIN_MS: '15000' }).shutdownDrainMs).toBe(15000);
        for (const raw of ['-1', '1.5', 'soon']) expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: raw }), raw).toThrow(/SHUTDOWN_DRAIN_MS must be a non-negative integer/);
    });

    it('positive integers for lifetimes and rate limits', () => {
        expectConfigError({ TOKEN_ACCESS_MAX_AGE: '0' }, 'TOKEN_ACCESS_MAX_AGE', /positive integer/);
        expectConfigError({ RATE_LIMIT_USER_MAX: '1.5' }, 'RATE_LIMIT_USER_MAX', /positive integer/);
        expectConfigError({ DB_POOL_SIZE: '0' }, 'DB_POOL_SIZE', /positive integer/);
    });

    it('HEAP_GROWING_PERCENT: an integer from 0 (V8\'s own growth) to 1000', () => {
        expect(loadConfig({ HEAP_GROWING_PERCENT: '50' }).heapGrowingPercent).toBe(50);
        expect(loadConfig({}).heapGrowingPercent).toBeUndefined();
        expectConfigError({ HEAP_GROWING_PERCENT: '-5' }, 'HEAP_GROWING_PERCENT', /integer from 0 to 1000/);
        expectConfigError({ HEAP_GROWING_PERCENT: '1001' }, 'HEAP_GROWING_PERCENT', /integer from 0 to 1000/);
        expectConfigError({ HEAP_GROWING_PERCENT: '1.3' }, 'HEAP_GROWING_PERCENT', /integer from 0 to 1000/);
    });

    it('PUBLIC_URL: absolute http(s), one trailing slash stripped', () => {
        expect(loadConfig({ PUBLIC_URL: 'https://id.example.com/' }).publicUrl).toBe('https://id.example.com');
        expect(loadConfig({ PUBLIC_URL: 'http://localhost:3000' }).publicUrl).toBe('http://localhost:3000');
        for (const raw of ['ftp://x', '/relative', 'localhost:3000', 'https://x//', 'https://x/?a=1', 'https://x/#f', 'https://u:p@x']) {
            expectConfigError({ PUBLIC_URL: raw }, 'PUBLIC_URL', /absolute http\(s\) URL/);
        }
    });

    it('SECRETS_ENCRYPTION_KEY decodes to 32 bytes from hex or base64, and is never echoed', () => {
        const bytes = Buffer.alloc(32, 7);
        for (const raw of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]) {
            const config = loadConfig({ SECRETS_ENCRYPTION_KEY: raw });
            expect(decodeSecretsEncryptionKey(config.secretsEncryptionKey!)).toEqual(bytes);
        }
        const error = expectConfigError({ SECRETS_ENCRYPTION_KEY: 'too-short-secret' }, 'SECRETS_ENCRYPTION_KEY', /32 bytes/);
        expect(error.message).not.toContain('too-short-secret');
        expectConfigError({ SECRETS_ENCRYPTION_KEY: Buffer.alloc(31).toString('base64') }, 'SECRETS_ENCRYPTION_KEY', /32 bytes/);
        expectConfigError({ SECRETS_ENCRYPTION_KEY: 'ab'.repeat(31) }, 'SECRETS_ENCRYPTION_KEY', /32 bytes/);
    });

    it('TRUST_PROXY: boolean, hop count or address list', () => {
        expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
        expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
        expect(loadConfig({ TRUST_PROXY: 'loopback,::1,192.168.0.0/16,10.0.0.0/255.0.0.0' }).trustProxy).toBe(
            'loopback,::1,192.168.0.0/16,10.0.0.0/255.0.0.0',
        );
        for (const raw of ['proxy.local', '10.0.0.0/33', '1.2.3.4,', 'yes']) expectConfigError({ TRUST_PROXY: raw }, 'TRUST_PROXY', /hop count/);
    });

    it('URLs are checked for their scheme without echoing credentials', () => {
        const error = expectConfigError({ REDIS_URL: 'http://user:pw@cache' }, 'REDIS_URL', /redis:\/\//);
        expect(error.message).not.toContain('pw');
        expectConfigError({ SMTP_URL: 'mail.example.com' }, 'SMTP_URL', /smtp:\/\//);
    });

    it('database settings that contradict each other stop the boot', () => {
        expectConfigError({ DB_TYPE: 'postgres' }, 'DB_URL', /needs DB_URL or DB_HOST/);
        expectConfigError({ DB_URL: 'postgres://db/app' }, 'DB_TYPE', /set DB_TYPE=postgres/);
        expectConfigError({ DB_TYPE: 'postgres', DB_URL: 'mysql://db/app' }, 'DB_URL', /postgres:\/\//);
        expect(loadConfig({ DB_TYPE: 'postgres', DB_HOST: 'db', DB_PORT: '5432' }).db).toMatchObject({ type: 'postgres', host: 'db', port: 5432 });
        expect(loadConfig({ DB_TYPE: 'postgres', DB_URL: 'postgresql://u@db/app' }).db.url).toBe('postgresql://u@db/app');
    });

    it('DB_REPLICATION: mysql URLs for DB_TYPE=mysql only, never echoed', () => {
        const mysql = { DB_TYPE: 'mysql', DB_HOST: 'primary' };
        expect(loadConfig({ ...mysql, DB_REPLICATION: '{"read":["mysql://ro:pw@r1/app"]}' }).db.replication).toEqual({ read: ['mysql://ro:pw@r1/app'] });
        for (const raw of ['postgres://ro:pw@r1/app', '{"read":[]}', '{"read":"mysql://r1"}', '{"write":["mysql://r1"]}', ',']) {
            const error = expectConfigError({ ...mysql, DB_REPLICATION: raw }, 'DB_REPLICATION', /mysql:\/\//);
            expect(error.message).not.toContain('pw');
        }
        expectConfigError({ DB_TYPE: 'postgres', DB_HOST: 'db', DB_REPLICATION: 'mysql://r1/app' }, 'DB_REPLICATION', /DB_TYPE=mysql/);
    });

    it('DB_BUS_URL: a postgres URL for DB_TYPE=postgres only, never echoed', () => {
        const postgres = { DB_TYPE: 'postgres', DB_URL: 'postgres://app@pgbouncer:6432/app' };
        expect(loadConfig({ ...postgres, DB_BUS_URL: 'postgresql://app:pw@db:5432/app' }).db.busUrl).toBe('postgresql://app:pw@db:5432/app');
        expect(loadConfig(postgres).db.busUrl).toBeUndefined();
        for (const raw of ['mysql://app:pw@db/app', 'db:5432', 'redis://:pw@db']) {
            const error = expectConfigError({ ...postgres, DB_BUS_URL: raw }, 'DB_BUS_URL', /postgres:\/\//);
            expect(error.message).not.toContain('pw');
        }
        expectConfigError({ DB_TYPE: 'mysql', DB_HOST: 'db', DB_BUS_URL: 'postgres://db/app' }, 'DB_BUS_URL', /DB_TYPE=postgres/);
        expectConfigError({ DB_BUS_URL: 'postgres://db/app' }, 'DB_BUS_URL', /DB_TYPE=postgres/);
    });

    it('middleware switches take a boolean or their object as JSON, members checked', () => {
        expect(loadConfig({ MIDDLEWARE_BODY: 'false', MIDDLEWARE_QUERY: '0', MIDDLEWARE_RATE_LIMIT: 'TRUE' })).toMatchObject({
            middlewareBody: false, middlewareQuery: false, middlewareRateLimit: true,
        });
        expect(loadConfig({ MIDDLEWARE_BODY: '{"urlencoded":{"limit":2048}}' }).middlewareBody).toEqual({ urlencoded: { limit: 2048 } });
        for (const raw of ['{"xml":true}', '{"json":{"limit":"lots"}}', '{"json":{"limit":0}}', '{"json":{}}', '[1]', 'yes']) {
            expectConfigError({ MIDDLEWARE_BODY: raw }, 'MIDDLEWARE_BODY', /`json`, `urlencoded`, `text`/);
        }
        for (const raw of ['{"depth":0}', '{"depth":"2"}', '{"nesting":2}']) expectConfigError({ MIDDLEWARE_QUERY: raw }, 'MIDDLEWARE_QUERY', /`depth`/);
        for (const raw of ['{"max":-1}', '{"windowMs":100}', '{"max":1.5}']) expectConfigError({ MIDDLEWARE_RATE_LIMIT: raw }, 'MIDDLEWARE_RATE_LIMIT', /"max": a positive integer/);
    });

    it('MTLS_PUBLIC_URL is an absolute http(s) URL', () => {
        expectConfigError({ MTLS_PUBLIC_URL: 'mtls.example.com' }, 'MTLS_PUBLIC_URL', /absolute http\(s\) URL/);
    });
});
