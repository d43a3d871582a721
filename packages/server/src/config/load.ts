import { filePathOf, findConfigFile, readConfigFile, type ConfigFile } from './file.js';
import * as parse from './parsers.js';
import { ConfigError, type Parser } from './parsers.js';
import { CONFIG_KEYS, DB_TYPES, ENVIRONMENTS, LOG_LEVELS, CACHE_MODES } from './schema.js';
import type { Config, ConfigKey, ConfigKeyPath, DeepPartial, ValueAt } from './schema.js';

export { ConfigError, decodeSecretsEncryptionKey } from './parsers.js';

/** One parser per table row; the mapped type makes a row without a parser a compile error. */
const PARSERS: { [K in ConfigKeyPath]: Parser<NonNullable<ValueAt<Config, K>>> } = {
    configFile: parse.text,
    env: parse.oneOf(ENVIRONMENTS),
    port: parse.port,
    host: parse.text,
    publicUrl: parse.publicUrl,
    writableDirectoryPath: parse.text,
    'db.type': parse.oneOf(DB_TYPES),
    'db.url': parse.dbUrl,
    'db.host': parse.text,
    'db.port': parse.port,
    'db.username': parse.text,
    'db.password': parse.text,
    'db.database': parse.text,
    'db.replication': parse.replication,
    'db.poolSize': parse.positiveInteger,
    'db.asynchronousCommit': parse.boolean,
    'db.namedStatements': parse.boolean,
    'db.busUrl': parse.urlWithScheme(['postgres', 'postgresql']),
    redisUrl: parse.urlWithScheme(['redis', 'rediss']),
    caches: parse.oneOf(CACHE_MODES),
    heapGrowingPercent: parse.percent,
    smtp: parse.urlWithScheme(['smtp', 'smtps']),
    'userAdmin.name': parse.text,
    'userAdmin.password': parse.text,
    'userAdmin.enabled': parse.strictBoolean,
    secretsEncryptionKey: parse.encryptionKey,
    tokenAccessMaxAge: parse.positiveInteger,
    tokenRefreshMaxAge: parse.positiveInteger,
    'worker.enabled': parse.boolean,
    'worker.port': parse.port,
    'console.port': parse.port,
    'console.publicUrl': parse.publicUrl,
    'console.authPort': parse.port,
    'metrics.enabled': parse.boolean,
    'metrics.token': parse.text,
    shutdownDrainMs: parse.nonNegativeInteger,
    eventLogRetentionDays: parse.positiveInteger,
    eventLogAggregateRetentionDays: parse.positiveInteger,
    migrationEnabled: parse.boolean,
    trustProxy: parse.trustProxy,
    corsOrigins: parse.text,
    outboundAllowedHosts: parse.hostList,
    authConsolePath: parse.text,
    'rateLimit.userMax': parse.positiveInteger,
    'rateLimit.clientMax': parse.positiveInteger,
    'rateLimit.anonymousMax': parse.positiveInteger,
    logLevel: parse.oneOf(LOG_LEVELS),
    permissionsDefaultPolicyAssignment: parse.boolean,
    querySchemaDiscoveryEnabled: parse.boolean,
    docsEnabled: parse.boolean,
    userAuthBasic: parse.boolean,
    mtlsPublicUrl: parse.publicUrl,
    'dpop.nonceRequired': parse.boolean,
    'dpop.nonceSecret': parse.text,
    middlewareBody: parse.middlewareBody,
    middlewareCookie: parse.boolean,
    middlewareQuery: parse.middlewareQuery,
    middlewareRateLimit: parse.middlewareRateLimit,
};

/** What a file value must be before its text form goes through the key's parser. */
type FileType = 'string' | 'number' | 'boolean' | 'object' | 'scalar';
const FILE_TYPES = new Map<Parser<unknown>, FileType>([
    [parse.port, 'number'],
    [parse.positiveInteger, 'number'],
    [parse.nonNegativeInteger, 'number'],
    [parse.percent, 'number'],
    [parse.boolean, 'boolean'],
    [parse.strictBoolean, 'boolean'],
    [parse.trustProxy, 'scalar'],
    [parse.middlewareBody, 'object'],
    [parse.middlewareQuery, 'object'],
    [parse.middlewareRateLimit, 'object'],
    [parse.replication, 'object'],
]);

/**
 * A file value: of the key's JSON type (a wrong type stops the boot), then through the same parser
 * as the variable, so the file and the environment accept the same values. The messages name the
 * key path and the file instead of the variable.
 */
function fromFile(value: unknown, entry: ConfigKey, parser: Parser<unknown>, file: ConfigFile): unknown {
    const keyPath = file.paths.get(entry.key) ?? filePathOf(entry.key);
    const where = `${keyPath} (in ${file.path})`;
    // the smtp object is checked member by member where it is used (mail/transport.ts, called at boot by cli.ts)
    if (entry.key === 'smtp' && typeof value === 'object' && !Array.isArray(value)) return value;
    const type = FILE_TYPES.get(parser) ?? 'string';
    const fits = type === 'object' ? (typeof value === 'object' && !Array.isArray(value)) || typeof value === 'boolean' :
        type === 'scalar' ? ['string', 'number', 'boolean'].includes(typeof value) : typeof value === type;
    if (!fits) {
        const expected = type === 'object' ? 'an object or a boolean' : type === 'scalar' ? 'a string, number or boolean' : `a ${type}`;
        throw new ConfigError(keyPath, `Invalid configuration: ${where} must be ${expected}, got ${Array.isArray(value) ? 'an array' : typeof value}.`);
    }
    return parser(type === 'object' ? JSON.stringify(value) : String(value), { ...entry, env: where });
}

type Tree = Record<string, unknown>;

/** Whether the path is present (an explicit `undefined` counts: an override may unset a key). */
function lookup(tree: unknown, path: string): { found: boolean; value?: unknown } {
    let current = tree;
    for (const part of path.split('.')) {
        if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part)) return { found: false };
        current = (current as Tree)[part];
    }
    return { found: true, value: current };
}

function assign(tree: Tree, path: string, value: unknown): void {
    const parts = path.split('.');
    const last = parts.pop()!;
    let current = tree;
    for (const part of parts) {
        current[part] ??= {};
        current = current[part] as Tree;
    }
    current[last] = value;
}

/**
 * Defaults that follow another key (the table shows them as `$PORT`). They are computed from the
 * resolved value rather than re-parsed, so an override such as `port: 0` (tests) carries over.
 */
const DERIVED: Partial<Record<ConfigKeyPath, (resolved: Config) => unknown>> = {
    publicUrl: (resolved) => `http://localhost:${resolved.port}`,
    'worker.port': (resolved) => resolved.port,
    'console.port': (resolved) => resolved.port,
    'console.authPort': (resolved) => resolved.console.port,
};

/**
 * Read the configuration. Per key: an override (tests) wins, then the environment variable, then
 * the config file, then the default. Empty variables count as unset, as `KEY=` in a compose or .env file
 * usually means "not configured". Derived defaults ($PORT) follow the final value of what they
 * name, overrides included (the table lists a key after the one its default refers to).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides?: DeepPartial<Config>, file?: ConfigFile): Config {
    const resolved: Tree = {};
    for (const entry of CONFIG_KEYS as readonly ConfigKey[]) {
        const parser = PARSERS[entry.key as ConfigKeyPath] as Parser<unknown>;
        const derive = DERIVED[entry.key as ConfigKeyPath];
        const override = lookup(overrides, entry.key);
        const raw = env[entry.env];
        let value: unknown;
        if (override.found) value = override.value;
        else if (raw !== undefined && raw !== '') value = parser(raw, entry);
        else if (file?.values.has(entry.key)) value = fromFile(file.values.get(entry.key), entry, parser, file);
        else if (derive) value = derive(resolved as unknown as Config);
        else if (entry.default !== null) value = parser(entry.default, entry);
        assign(resolved, entry.key, value);
    }
    const config = resolved as unknown as Config;
    checkDatabase(config);
    return config;
}

/**
 * The configuration at boot: the file (CONFIG_FILE or realmgate.config.* in
 * `cwd`) under the environment, which overrides it key by key.
 */
export function loadBootConfig(env: Record<string, string | undefined> = process.env, cwd: string = process.cwd()): Config {
    const path = findConfigFile(env, cwd);
    if (path === undefined) return loadConfig(env);
    return loadConfig(env, { configFile: path }, readConfigFile(path));
}

const URL_DIALECTS: Record<string, Config['db']['type']> = {
    'postgres:': 'postgres',
    'postgresql:': 'postgres',
    'mysql:': 'mysql',
    'mariadb:': 'mysql',
};

/** Rules that span keys: a server dialect needs somewhere to connect, and the URL must fit DB_TYPE. */
function checkDatabase(config: Config): void {
    const { db } = config;
    if (db.replication !== undefined && db.type !== 'mysql') {
        throw new ConfigError('DB_REPLICATION', `Invalid configuration: DB_REPLICATION (db.replication) is for DB_TYPE=mysql, not ${db.type}.`);
    }
    if (db.busUrl !== undefined && db.type !== 'postgres') {
        throw new ConfigError('DB_BUS_URL', `Invalid configuration: DB_BUS_URL (db.busUrl) is for DB_TYPE=postgres, not ${db.type}.`);
    }
    if (db.type !== 'sqlite' && db.url === undefined && db.host === undefined) {
        throw new ConfigError('DB_URL', `Invalid configuration: DB_TYPE=${db.type} needs DB_URL or DB_HOST.`);
    }
    if (db.url === undefined || !db.url.includes('://')) return;
    const scheme = db.url.slice(0, db.url.indexOf(':') + 1).toLowerCase();
    const dialect = URL_DIALECTS[scheme];
    if (db.type === 'sqlite' && dialect) {
        throw new ConfigError('DB_TYPE', `Invalid configuration: DB_URL names a ${dialect} database but DB_TYPE is sqlite; set DB_TYPE=${dialect}.`);
    }
    if (db.type !== 'sqlite' && dialect !== db.type) {
        const expected = db.type === 'postgres' ? 'postgres:// or postgresql://' : 'mysql:// or mariadb://';
        throw new ConfigError('DB_URL', `Invalid configuration: DB_URL must start with ${expected} for DB_TYPE=${db.type}.`);
    }
}
