import type { Config, ConfigKey, LeafPath } from './schema/config.js';
import { PROCESS_KEYS } from './schema/keys-process.js';
import { REQUEST_KEYS } from './schema/keys-requests.js';
import { SERVICE_KEYS } from './schema/keys-services.js';

/**
 * The server configuration (API.md §6): one typed object, and one table naming every key beside its
 * environment variable, default and meaning. The loader reads the environment through this table
 * only and `describeConfig()` renders it, so the documentation and the code cannot drift apart.
 * The types live in config/schema/settings.ts and config.ts, the key table by section in
 * config/schema/keys-*.ts; this module assembles them.
 */

export { CACHE_MODES, DB_TYPES, ENVIRONMENTS, LOG_LEVELS } from './schema/settings.js';
export type { BodyParserSetting, CacheMode, DbConfig, DbType, Environment, LogLevel, MiddlewareBody, MiddlewareQuery, MiddlewareRateLimit, ReplicationSettings, SmtpObject, SmtpSetting } from './schema/settings.js';
export type { Config, ConfigKey, DeepPartial, LeafPath, ValueAt } from './schema/config.js';

// Order matters: a default that refers to `$NAME` must come after NAME's row.
export const CONFIG_KEYS = [...PROCESS_KEYS, ...SERVICE_KEYS, ...REQUEST_KEYS] as const satisfies readonly ConfigKey[];

export type ConfigKeyPath = (typeof CONFIG_KEYS)[number]['key'];

// Compile-time guard: the table names every leaf of Config and nothing else.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const tableCoversConfig: Same<ConfigKeyPath, LeafPath<Config>> = true;
void tableCoversConfig;

/** The key table as Markdown, for the documentation. */
export function describeConfig(): string {
    const cell = (text: string): string => text.replace(/\|/g, '\\|');
    const lines = ['| variable | key | default | meaning |', '|---|---|---|---|'];
    for (const entry of CONFIG_KEYS as readonly ConfigKey[]) {
        const fallback = entry.default === null ? 'unset' : `\`${entry.default}\``;
        const meaning = entry.notYetEffective ? `**not yet effective** (read once ${entry.notYetEffective} lands): ${entry.description}` : entry.description;
        lines.push(`| \`${entry.env}\` | \`${entry.key}\` | ${cell(fallback)} | ${cell(meaning)} |`);
    }
    return `${lines.join('\n')}\n`;
}
