/**
 * The UTC pin (spec beta.67 item 6; Errors: "a database setting that contradicts the UTC pin (a
 * MySQL timezone other than UTC, a MySQL dateStrings or typeCast, a PostgreSQL TimeZone other than
 * UTC)" stops the service). Settings are refused, never silently overridden, so an operator who
 * asked for a zone learns at boot that it is not honoured instead of reading shifted timestamps.
 */
export class DatabaseConfigError extends Error {
    readonly code = 'database_config';

    /** The offending setting, e.g. `DB_URL options TimeZone` or `DB_URL dateStrings`. */
    readonly setting: string;

    constructor(setting: string, message: string) {
        super(message);
        this.name = 'DatabaseConfigError';
        this.setting = setting;
    }
}

/** The zone every pooled PostgreSQL session is set to when it opens (db/postgres.ts). */
export const PG_UTC_ZONE = 'UTC';

/** The zone every pooled MySQL session runs in (`SET time_zone`). */
export const MYSQL_UTC_OFFSET = '+00:00';

const PG_UTC_NAMES = new Set(['utc', 'etc/utc']);

const MYSQL_UTC_NAMES = new Set(['z', 'utc', '+00:00']);

/**
 * Query parameters as written: `decodeURIComponent` keeps `+` (URLSearchParams would turn
 * `timezone=+02:00` into " 02:00", and the error should quote what the operator wrote).
 */
function rawQueryParams(url: string): [string, string][] {
    const query = /\?([^#]*)/.exec(url)?.[1] ?? '';
    const params: [string, string][] = [];
    for (const part of query.split('&')) {
        if (part === '') continue;
        const eq = part.indexOf('=');
        const key = eq < 0 ? part : part.slice(0, eq);
        const value = eq < 0 ? '' : part.slice(eq + 1);
        params.push([safeDecode(key), safeDecode(value)]);
    }
    return params;
}

function safeDecode(text: string): string {
    try {
        return decodeURIComponent(text);
    } catch {
        return text;
    }
}

/** Splits a libpq `options` value into `name=value` settings (`-c a=b`, `-ca=b`, `--a=b`). */
export function parsePgOptions(options: string): { name: string; value: string }[] {
    // libpq separates arguments by whitespace; a backslash escapes the next character.
    const args: string[] = [];
    let current = '';
    let escaped = false;
    let inArg = false;
    for (const char of options) {
        if (escaped) {
            current += char;
            escaped = false;
        } else if (char === '\\') {
            escaped = true;
            inArg = true;
        } else if (/\s/.test(char)) {
            if (inArg) args.push(current);
            current = '';
            inArg = false;
        } else {
            current += char;
            inArg = true;
        }
    }
    if (inArg) args.push(current);

    const settings: { name: string; value: string }[] = [];
    for (let i = 0; i < args.length; i++) {
        const arg = args[i] ?? '';
        let assignment: string | undefined;
        if (arg === '-c') assignment = args[++i];
        else if (arg.startsWith('--')) assignment = arg.slice(2);
        else if (arg.startsWith('-c')) assignment = arg.slice(2);
        if (assignment === undefined) continue;
        const eq = assignment.indexOf('=');
        if (eq < 0) continue;
        settings.push({ name: assignment.slice(0, eq), value: assignment.slice(eq + 1) });
    }
    return settings;
}

/**
 * Refuses a PostgreSQL `options` value whose TimeZone is not UTC. `source` names where the value
 * came from (for the error message). The pin itself is set on each new connection (db/postgres.ts).
 */
export function checkPostgresOptions(options: string | undefined, source: string): void {
    for (const { name, value } of parsePgOptions(options ?? '')) {
        const key = name.toLowerCase().replace(/-/g, '_');
        if (key === 'timezone' && !PG_UTC_NAMES.has(value.toLowerCase())) {
            throw new DatabaseConfigError(
                `${source} TimeZone`,
                `${source} sets the PostgreSQL TimeZone to "${value}"; the database session is pinned to UTC (remove the setting or set it to UTC)`,
            );
        }
    }
}

/** Checks a PostgreSQL connection URL; returns its `options` parameter (if any). */
export function checkPostgresUrl(url: string): string | undefined {
    let options: string | undefined;
    for (const [key, value] of rawQueryParams(url)) {
        const name = key.toLowerCase();
        if (name === 'options') {
            checkPostgresOptions(value, 'DB_URL options');
            options = value;
        } else if (name === 'timezone' && !PG_UTC_NAMES.has(value.toLowerCase())) {
            throw new DatabaseConfigError(
                `DB_URL ${key}`,
                `DB_URL sets ${key}=${value}; the PostgreSQL session is pinned to UTC (remove the parameter or set it to UTC)`,
            );
        }
    }
    return options;
}

/** Checks a MySQL/MariaDB connection URL for parameters that contradict the UTC pin. */
export function checkMysqlUrl(url: string, source = 'DB_URL'): void {
    for (const [key, value] of rawQueryParams(url)) {
        const name = key.toLowerCase();
        if (name === 'timezone' && !MYSQL_UTC_NAMES.has(value.trim().toLowerCase())) {
            throw new DatabaseConfigError(
                `${source} ${key}`,
                `${source} sets the MySQL timezone to "${value}"; the database session is pinned to UTC (remove the parameter or set it to Z)`,
            );
        }
        // dateStrings hands DATETIME back as zone-less text and typeCast replaces the decoding of
        // every column: both bypass the UTC reading, whatever their value.
        if (name === 'datestrings' || name === 'typecast') {
            throw new DatabaseConfigError(
                `${source} ${key}`,
                `${source} sets ${key}=${value}; MySQL dateStrings and typeCast contradict the UTC pin and are not accepted`,
            );
        }
    }
}

/** Accepts the zone a pinned PostgreSQL session reports. */
export function isPostgresUtc(zone: unknown): boolean {
    return typeof zone === 'string' && PG_UTC_NAMES.has(zone.toLowerCase());
}

/** Accepts the zone a pinned MySQL session reports. */
export function isMysqlUtc(zone: unknown): boolean {
    return zone === MYSQL_UTC_OFFSET || zone === 'UTC';
}
