import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './parsers.js';
import { CONFIG_KEYS, type ConfigKey } from './schema.js';

/** Looked for in the working directory when CONFIG_FILE is unset (the configuration file's default names). */
const CONFIG_FILE_NAMES = ['realmgate.config.json', 'realmgate.config.yaml', 'realmgate.config.yml'] as const;

/** A configuration file read and flattened: the file's value per configuration key (`db.url`, `port`, …). */
export interface ConfigFile {
    path: string;
    values: ReadonlyMap<string, unknown>;
    /** the key path the file wrote a value under, per configuration key (messages name what the operator wrote) */
    paths: ReadonlyMap<string, string>;
}

/**
 * Where a key sits in the file: the spec's nesting (`core.*` for the service's own settings, `db.*`,
 * and `smtp` beside them), so `core.worker.port` is the key the spec calls core.worker.port.
 */
export function filePathOf(key: string): string {
    return key.startsWith('db.') || key === 'smtp' ? key : `core.${key}`;
}

/**
 * Second names of a key: the spec's Limits table names the budgets flat (rateLimitUserMax,
 * rateLimitClientMax, rateLimitAnonymousMax), beside the nested core.rateLimit.* this schema uses.
 */
const SPEC_NAMES: Readonly<Record<string, string>> = {
    'core.rateLimitUserMax': 'rateLimit.userMax',
    'core.rateLimitClientMax': 'rateLimit.clientMax',
    'core.rateLimitAnonymousMax': 'rateLimit.anonymousMax',
};

/** the file's key paths (CONFIG_FILE names the file, so it is no key of it) */
const FILE_KEYS = new Map([
    ...(CONFIG_KEYS as readonly ConfigKey[]).filter((entry) => entry.key !== 'configFile').map((entry) => [filePathOf(entry.key), entry.key] as const),
    ...Object.entries(SPEC_NAMES),
]);

/** CONFIG_FILE, else the one of CONFIG_FILE_NAMES present in `cwd`; two of them present is ambiguous and stops the boot. */
export function findConfigFile(env: Record<string, string | undefined>, cwd: string): string | undefined {
    const named = env.CONFIG_FILE;
    if (named !== undefined && named !== '') {
        const path = resolve(cwd, named);
        if (!existsSync(path)) throw new ConfigError('CONFIG_FILE', `Invalid configuration: CONFIG_FILE names ${path}, which does not exist.`);
        return path;
    }
    const present = CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).filter((path) => existsSync(path));
    if (present.length > 1) {
        throw new ConfigError('CONFIG_FILE', `Invalid configuration: ${present.join(' and ')} both exist; keep one or name it in CONFIG_FILE.`);
    }
    return present[0];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Read and flatten the file. A key the schema does not know stops the boot naming the file and the
 * key path (a misspelt key must not be silently ignored); a `null` value counts as unset.
 */
export function readConfigFile(path: string): ConfigFile {
    const text = readFileSync(path, 'utf8');
    let tree: unknown;
    try {
        tree = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    } catch (error) {
        throw new ConfigError('CONFIG_FILE', `Invalid configuration file ${path}: ${(error as Error).message}`);
    }
    // an empty YAML file parses to null: nothing configured
    if (tree === null || tree === undefined) return { path, values: new Map(), paths: new Map() };
    if (!isObject(tree)) throw new ConfigError('CONFIG_FILE', `Invalid configuration file ${path}: the top level must be an object.`);
    const values = new Map<string, unknown>();
    const paths = new Map<string, string>();
    const walk = (node: Record<string, unknown>, prefix: string): void => {
        for (const [name, value] of Object.entries(node)) {
            const filePath = `${prefix}${name}`;
            const key = FILE_KEYS.get(filePath);
            if (key !== undefined) {
                if (value === null) continue;
                // a key written under both of its names: neither may silently win
                const other = paths.get(key);
                if (other !== undefined) throw new ConfigError(filePath, `Invalid configuration file ${path}: ${other} and ${filePath} set the same key; keep one.`);
                values.set(key, value);
                paths.set(key, filePath);
                continue;
            }
            const isBranch = [...FILE_KEYS.keys()].some((known) => known.startsWith(`${filePath}.`));
            if (!isBranch) throw new ConfigError(filePath, `Invalid configuration file ${path}: unknown key ${filePath}.`);
            if (!isObject(value)) throw new ConfigError(filePath, `Invalid configuration file ${path}: ${filePath} must be an object.`);
            walk(value, `${filePath}.`);
        }
    };
    walk(tree, '');
    return { path, values, paths };
}
