import { isIP } from 'node:net';
import type { ConfigKey, MiddlewareBody, MiddlewareQuery, MiddlewareRateLimit, ReplicationSettings } from './schema.js';

/**
 * A bad configuration value. Boot stops on it (spec Errors: "an unrecognized USER_ADMIN_ENABLED
 * value"); the message names the variable and the expected form so the operator can fix it.
 */
export class ConfigError extends Error {
    readonly code = 'config_invalid' as const;

    /** the environment variable at fault */
    readonly key: string;

    constructor(key: string, message: string) {
        super(message);
        this.name = 'ConfigError';
        this.key = key;
    }
}

export type Parser<T> = (raw: string, entry: ConfigKey) => T;

function fail(entry: ConfigKey, raw: string, expected: string): never {
    // Secrets and URLs that may carry credentials are never echoed (the message reaches logs).
    const got = entry.secret ? '' : `, got ${JSON.stringify(raw)}`;
    throw new ConfigError(entry.env, `Invalid configuration: ${entry.env} must be ${expected}${got}.`);
}

export const text: Parser<string> = (raw) => raw;

export const port: Parser<number> = (raw, entry) => {
    const value = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= 1 && value <= 65535)) fail(entry, raw, 'an integer from 1 to 65535');
    return value;
};

export const positiveInteger: Parser<number> = (raw, entry) => {
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < 1) fail(entry, raw, 'a positive integer');
    return value;
};

/** A count that may be zero (a drain period of 0 ms closes at once). */
export const nonNegativeInteger: Parser<number> = (raw, entry) => {
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value)) fail(entry, raw, 'a non-negative integer');
    return value;
};

/** A percentage from 0 to 1000 (V8's heap growth: 0 leaves V8's own). */
export const percent: Parser<number> = (raw, entry) => {
    const value = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= 0 && value <= 1000)) fail(entry, raw, 'an integer from 0 to 1000');
    return value;
};

/** Lenient boolean for the ordinary switches: true/false/1/0, any case. */
export const boolean: Parser<boolean> = (raw, entry) => {
    const lower = raw.toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
    return fail(entry, raw, '`true` or `false` (or 1 / 0)');
};

/** Spec (Errors, States): USER_ADMIN_ENABLED is a strict boolean; anything else stops the boot. */
export const strictBoolean: Parser<boolean> = (raw, entry) => {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    return fail(entry, raw, 'exactly `true` or `false`');
};

export function oneOf<const T extends string>(values: readonly T[]): Parser<T> {
    return (raw, entry) => {
        if ((values as readonly string[]).includes(raw)) return raw as T;
        return fail(entry, raw, `one of ${values.map((value) => `\`${value}\``).join(', ')}`);
    };
}

function parseUrl(raw: string): URL | null {
    try {
        return new URL(raw);
    } catch {
        return null;
    }
}

export function urlWithScheme(schemes: readonly string[]): Parser<string> {
    return (raw, entry) => {
        const url = parseUrl(raw);
        if (!url || !schemes.includes(url.protocol.slice(0, -1))) {
            fail(entry, raw, `a URL with scheme ${schemes.map((scheme) => `${scheme}://`).join(' or ')}`);
        }
        return raw;
    };
}

/**
 * The issuer base: OIDC issuers are compared as strings and must not carry a query or fragment,
 * and `${publicUrl}/realms/…` must not produce a double slash, so one trailing slash is stripped.
 */
export const publicUrl: Parser<string> = (raw, entry) => {
    const value = raw.endsWith('/') ? raw.slice(0, -1) : raw;
    const url = parseUrl(value);
    const expected = 'an absolute http(s) URL without query, fragment or credentials (one trailing slash is allowed)';
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) fail(entry, raw, expected);
    if (url.search || url.hash || raw.includes('?') || raw.includes('#') || url.username || url.password) fail(entry, raw, expected);
    if (value.endsWith('/')) fail(entry, raw, expected);
    return value;
};

/** A connection URL for the server dialects, or a file path / name for SQLite. */
export const dbUrl: Parser<string> = (raw, entry) => {
    if (raw.includes('://') && !parseUrl(raw)) fail(entry, raw, 'a connection URL such as postgres://user:password@host:5432/name');
    return raw;
};

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=?$/;
const BASE64URL_KEY = /^[A-Za-z0-9_-]{43}=?$/;

/** The 32 key bytes of SECRETS_ENCRYPTION_KEY, or null when the form is wrong. Hex is tried first: 64 hex characters are also valid base64. */
export function decodeSecretsEncryptionKey(value: string): Buffer | null {
    if (HEX_KEY.test(value)) return Buffer.from(value, 'hex');
    if (BASE64_KEY.test(value) || BASE64URL_KEY.test(value)) {
        const bytes = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
        return bytes.length === 32 ? bytes : null;
    }
    return null;
}

export const encryptionKey: Parser<string> = (raw, entry) => {
    if (!decodeSecretsEncryptionKey(raw)) fail(entry, raw, '32 bytes, as base64 (44 characters) or 64 hex characters');
    return raw;
};

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function proxyAddressValid(item: string): boolean {
    if (PROXY_NAMES.has(item)) return true;
    const [address = '', range, ...rest] = item.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    if (range === undefined) return true;
    if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
    // proxy-addr also accepts an IPv4 netmask (10.0.0.0/255.0.0.0).
    return family === 4 && isIP(range) === 4;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

/** An OUTBOUND_ALLOWED_HOSTS entry: an IP address, a CIDR range (prefix length only) or a host name. */
function allowedHostValid(item: string): boolean {
    const [address = '', range, ...rest] = item.split('/');
    const family = isIP(address);
    if (family === 0) return range === undefined && HOST_NAME.test(item);
    if (rest.length > 0) return false;
    return range === undefined || (/^\d{1,3}$/.test(range) && Number(range) <= (family === 4 ? 32 : 128));
}

/** Comma-separated host names, addresses and CIDR ranges (lower-cased; empty items ignored). */
export const hostList: Parser<string[]> = (raw, entry) => {
    const items = raw.split(',').map((item) => item.trim().toLowerCase()).filter(Boolean);
    if (items.some((item) => !allowedHostValid(item))) fail(entry, raw, 'a comma-separated list of host names, IP addresses and CIDR ranges');
    return items;
};

/** Fastify trustProxy (proxy-addr): a boolean, a hop count, or addresses / CIDR ranges. */
export const trustProxy: Parser<boolean | number | string> = (raw, entry) => {
    const lower = raw.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    if (/^\d{1,3}$/.test(raw)) return Number(raw);
    const items = raw.split(',').map((item) => item.trim());
    if (items.some((item) => !proxyAddressValid(item))) {
        fail(entry, raw, '`true`, `false`, a hop count, or a comma-separated list of IP addresses / CIDR ranges');
    }
    return items.join(',');
};

/** The switches that take an object too: `true` / `false` (or 1 / 0), or the object as JSON. */
function switchOrJson<T>(raw: string, entry: ConfigKey, expected: string, check: (value: unknown) => T | undefined): boolean | T {
    const lower = raw.toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
    let value: unknown;
    try {
        value = JSON.parse(raw);
    } catch {
        return fail(entry, raw, expected);
    }
    if (typeof value === 'boolean') return value;
    const checked = typeof value === 'object' && value !== null && !Array.isArray(value) ? check(value) : undefined;
    return checked === undefined ? fail(entry, raw, expected) : checked;
}

/** Only the named members, each passing its test. */
function membersValid(value: object, tests: Record<string, (member: unknown) => boolean>): boolean {
    return Object.entries(value).every(([key, member]) => Object.hasOwn(tests, key) && tests[key]!(member));
}

const SIZE = /^(\d+)\s*(b|kb|mb|gb)?$/i;
const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A byte count, or a size such as `512kb` / `1mb` (the body-parser notation the spec's option names come from). */
export function sizeInBytes(limit: number | string): number | null {
    if (typeof limit === 'number') return Number.isSafeInteger(limit) && limit >= 1 ? limit : null;
    const match = SIZE.exec(limit.trim());
    if (!match) return null;
    const bytes = Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!;
    return Number.isSafeInteger(bytes) && bytes >= 1 ? bytes : null;
}

const bodyParserValid = (member: unknown): boolean =>
    typeof member === 'boolean' ||
    (typeof member === 'object' && member !== null && membersValid(member, { limit: (limit) => (typeof limit === 'number' || typeof limit === 'string') && sizeInBytes(limit) !== null }) && 'limit' in member);

export const middlewareBody: Parser<MiddlewareBody> = (raw, entry) =>
    switchOrJson(raw, entry, '`true`, `false` or an object with `json`, `urlencoded`, `text` (each `true`, `false` or `{"limit": bytes or "1mb"}`)', (value) =>
        membersValid(value as object, { json: bodyParserValid, urlencoded: bodyParserValid, text: bodyParserValid }) ? (value as MiddlewareBody) : undefined);

const countValid = (member: unknown): boolean => Number.isSafeInteger(member) && (member as number) >= 1;

export const middlewareQuery: Parser<MiddlewareQuery> = (raw, entry) =>
    switchOrJson(raw, entry, '`true`, `false` or an object with positive integers `depth`, `arrayLimit`, `parameterLimit`', (value) =>
        membersValid(value as object, { depth: countValid, arrayLimit: countValid, parameterLimit: countValid }) ? (value as MiddlewareQuery) : undefined);

export const middlewareRateLimit: Parser<MiddlewareRateLimit> = (raw, entry) =>
    switchOrJson(raw, entry, '`true`, `false` or `{"max": a positive integer}`', (value) =>
        membersValid(value as object, { max: countValid }) ? (value as MiddlewareRateLimit) : undefined);

const REPLICA_SCHEMES = ['mysql:', 'mariadb:'];

/** DB_REPLICATION: comma-separated replica URLs, or `{"read": [...]}`. URLs carry credentials: never echoed. */
export const replication: Parser<ReplicationSettings> = (raw, entry) => {
    const expected = 'comma-separated mysql:// URLs or {"read": ["mysql://…"]} with at least one URL';
    let urls: unknown;
    if (raw.trim().startsWith('{')) {
        try {
            const value = JSON.parse(raw) as unknown;
            urls = typeof value === 'object' && value !== null && membersValid(value, { read: Array.isArray }) ? (value as { read: unknown }).read : undefined;
        } catch {
            urls = undefined;
        }
    } else {
        urls = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
    }
    const valid = Array.isArray(urls) && urls.length > 0 &&
        urls.every((url) => typeof url === 'string' && REPLICA_SCHEMES.includes(parseUrl(url)?.protocol ?? ''));
    if (!valid) fail(entry, raw, expected);
    return { read: urls as string[] };
};
