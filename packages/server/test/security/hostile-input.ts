import fc from 'fast-check';
import type { JsonSchema } from './openapi-operations.js';

/*
 * fast-check arbitraries for hostile input (a standing part of npm test): values shaped by a route's
 * schema, then broken — wrong types, oversized and encoding-broken strings (lone surrogates, NUL,
 * bidi and zero-width characters), deep nesting, prototype-polluting keys — and raw payloads that
 * are not JSON at all (invalid UTF-8 bytes, truncated text, wrong media types).
 */

/** characters that break naive text handling: NUL, lone surrogates, bidi overrides, zero-width, BOM, line separators */
const NASTY = ['\u0000', '\uD800', '\uDFFF', '\u202E', '\u2066', '\u200B', '\uFEFF', '\u0301', '\uFFFF', '\u{1F600}', '\r\n', '\u2028', '\'', '"', '\\', '%', '_', ';--'];

const nastyString: fc.Arbitrary<string> = fc.array(
    fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 3 })),
    { maxLength: 10 },
).map((parts) => parts.join(''));

const oversizedString: fc.Arbitrary<string> = fc.tuple(fc.integer({ min: 257, max: 70_000 }), fc.constantFrom('a', 'é', '\u{1F600}', '%', '0', ' '))
    .map(([length, unit]) => unit.repeat(length));

/** an array or object nested `depth` deep, built without recursion */
function nested(kind: 'array' | 'object', depth: number): unknown {
    let value: unknown = 1;
    for (let level = 0; level < depth; level += 1) value = kind === 'array' ? [value] : { a: value };
    return value;
}

const deepValue: fc.Arbitrary<unknown> = fc.tuple(fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>, fc.integer({ min: 16, max: 2_000 }))
    .map(([kind, depth]) => nested(kind, depth));

/** an object whose own enumerable keys include `__proto__`, `constructor` or `prototype` (JSON.stringify keeps them) */
const pollutingObject: fc.Arbitrary<Record<string, unknown>> = fc.subarray(['__proto__', 'constructor', 'prototype'], { minLength: 1 })
    .map((keys) => {
        const target: Record<string, unknown> = {};
        for (const key of keys) Object.defineProperty(target, key, { value: { polluted: true, prototype: { polluted: true } }, enumerable: true, writable: true, configurable: true });
        return target;
    });

const wrongTyped: fc.Arbitrary<unknown> = fc.oneof(
    fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), fc.constant({}), fc.constant([]),
    fc.constant({ $ne: null }), fc.constant({ $gt: '' }), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
    fc.constant(''), fc.constant(Number.MAX_SAFE_INTEGER * 4), fc.constant(-1),
);

/** values at and just past the usual limits, and text whose case or normalisation changes its length */
const boundaryValue: fc.Arbitrary<unknown> = fc.constantFrom(
    'x'.repeat(128), 'x'.repeat(129), 'x'.repeat(255), 'x'.repeat(256), 'x'.repeat(4096), 'x'.repeat(4097), 'é'.repeat(255), '\u{1F600}'.repeat(200),
    2_147_483_647, 2_147_483_648, -2_147_483_649, 0, 1.5, 'İ', 'ß', 'ﬀ', 'ǅ', 'e\u0301'.repeat(128), '1970-01-01T00:00:00Z', '9999-12-31', 'null', 'true',
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(wrongTyped, nastyString, oversizedString, deepValue, pollutingObject, boundaryValue);

const UUID = /^\^\[0-9a-fA-F\]\{8\}/;

/** policy types and other `type` values, so a body gets past the type check to the engine's own validation */
const TYPES = ['identity', 'composite', 'attributes', 'attributeNames', 'date', 'time', 'realmMatch', 'permissionBinding', '$withheld', 'oct', 'rsa', 'unknown'];

/** members that policy bodies (additionalProperties) and other routes read */
const MEMBER_KEYS = [
    'start', 'end', 'interval', 'dayOfWeek', 'dayOfMonth', 'dayOfYear', 'names', 'query', 'decisionStrategy', 'children', 'config', 'invert',
    'parentId', 'realmId', 'clientId', 'value', 'data', 'grantTypes', 'redirectUri', 'realmScope', 'policyId', 'permissionId', 'privateKey', 'algorithm',
];

/** values that pass a loose schema and reach the deeper validators: times, dates, intervals, strategies, queries */
const memberValue: fc.Arbitrary<unknown> = fc.oneof(
    fc.constantFrom(
        '00:00', '23:59:59', '24:00', '12:60', 'daily', 'weekly', 'monthly', 'yearly', 0, 6, 7, 31, 366, 367, -1, 1.5, 1e21,
        'unanimous', 'affirmative', 'consensus', [], ['a'], [{}], {}, { $eq: 1 }, { name: { $regex: '(a+)+$' } }, '2020-01-01', '2020-13-45', 'not-a-date',
        '2020-01-01T00:00:00Z', '-271821-04-20T00:00:00Z', '+275760-09-13T00:00:01Z',
    ),
    fc.jsonValue({ maxDepth: 3 }),
);

/**
 * A name as the schemas accept it. Built once: fast-check prepares a regular expression's arbitrary
 * by slicing its alphabet, which cost more than the requests themselves when it ran per schema node.
 */
const PLAIN_NAME = fc.stringMatching(/^[a-z][a-z0-9_-]{2,15}$/);

/** a value shaped like the schema (not always valid): the base the mutations break */
function plausible(schema: JsonSchema | undefined, ids: readonly string[], depth = 0, key = ''): fc.Arbitrary<unknown> {
    if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 2 });
    if (schema.anyOf?.length) return fc.oneof(...schema.anyOf.map((option) => plausible(option, ids, depth + 1)));
    if (schema.enum?.length) return fc.constantFrom(...schema.enum);
    if (key === 'type') return fc.oneof(fc.constantFrom(...TYPES), fc.string({ maxLength: 8 }));
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
        case 'string':
            if (schema.pattern && UUID.test(schema.pattern)) return ids.length ? fc.oneof(fc.constantFrom(...ids), fc.uuid()) : fc.uuid();
            return fc.oneof(PLAIN_NAME, fc.string({ minLength: 1, maxLength: Math.min(schema.maxLength ?? 16, 16) }));
        case 'integer': return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1_000, 1_000) });
        case 'number': return fc.double({ noNaN: true, noDefaultInfinity: true });
        case 'boolean': return fc.boolean();
        case 'null': return fc.constant(null);
        case 'array': return fc.array(plausible(schema.items, ids, depth + 1), { maxLength: 3 });
        case 'object': {
            const properties = schema.properties ?? {};
            const required = new Set(schema.required ?? []);
            return fc.record(
                Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, plausible(value, ids, depth + 1, name)])),
                { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) },
            );
        }
        default: return fc.jsonValue({ maxDepth: 2 });
    }
}

/** the schema's shape with one to three members broken, unknown or polluting members added */
function mutatedObject(schema: JsonSchema, ids: readonly string[]): fc.Arbitrary<unknown> {
    const keys = [...Object.keys(schema.properties ?? {}), ...MEMBER_KEYS];
    const mutation = fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }), fc.oneof(hostileValue, memberValue));
    return fc.tuple(plausible(schema, ids), fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.option(pollutingObject, { freq: 4 }))
        .map(([base, mutations, polluting]) => {
            const target: Record<string, unknown> = base && typeof base === 'object' && !Array.isArray(base) ? { ...base } : {};
            for (const [key, value] of mutations) Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
            if (polluting) for (const key of Object.keys(polluting)) Object.defineProperty(target, key, { value: polluting[key], enumerable: true, writable: true, configurable: true });
            return target;
        });
}

export interface Payload {
    body?: string | Buffer;
    contentType?: string;
    label: string;
}

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

/** payloads that are not well-formed JSON objects: raw bytes, truncated text, other top-level values */
const rawPayload: fc.Arbitrary<Payload> = fc.oneof(
    fc.constantFrom<[string, string | Buffer]>(
        ['invalid UTF-8 in a string', bytes('{"name":"', [0xff, 0xfe, 0xc3, 0x28], '"}')],
        ['an encoded surrogate (CESU-8)', bytes('{"name":"', [0xed, 0xa0, 0x80], '"}')],
        ['an overlong encoding of "/"', bytes('{"name":"', [0xc0, 0xaf], '"}')],
        ['invalid UTF-8 as a key', bytes('{"', [0x80, 0x81], '":1}')],
        ['a truncated object', '{"name":'],
        ['a truncated string', '{"name":"abc'],
        ['duplicate keys', '{"name":"a","name":{"x":1}}'],
        ['a number too large for a double', '{"name":1e999,"realmId":-1e999}'],
        ['a bare string', '"hello"'],
        ['a bare number', '12345678901234567890'],
        ['null', 'null'],
        ['an array', '[{"name":"x"}]'],
        ['the empty string', ''],
        ['a BOM before the object', '\uFEFF{"name":"x"}'],
        ['NUL bytes', bytes('{"name":"a', [0x00, 0x00], 'b"}')],
        ['a JSON comment', '{/* c */"name":"x"}'],
        ['single quotes', "{'name':'x'}"],
        ['a raw __proto__ key', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'],
    ).map(([label, body]) => ({ label, body, contentType: 'application/json' })),
    fc.tuple(fc.constantFrom('array', 'object'), fc.integer({ min: 2_000, max: 60_000 })).map(([kind, depth]) => ({
        label: `raw ${kind} nesting ${depth}`,
        body: kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
        contentType: 'application/json',
    })),
    fc.tuple(fc.constantFrom('text/plain', 'application/xml', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', 'a/b;;;=', 'application/x-www-form-urlencoded'), nastyString)
        .map(([contentType, text]) => ({ label: `media type ${contentType}`, body: `{"name":${JSON.stringify(text)}}`, contentType })),
);

const formPayload: fc.Arbitrary<Payload> = fc.dictionary(
    fc.constantFrom('grant_type', 'username', 'password', 'client_id', 'client_secret', 'refresh_token', 'scope', 'realm_id', 'realm_name', 'token', 'token_type_hint', 'grant_type[]', '__proto__[x]', 'constructor'),
    fc.oneof(fc.constantFrom('password', 'client_credentials', 'refresh_token', 'authorization_code', 'admin', 'start123', ''), nastyString, oversizedString),
    { maxKeys: 6 },
).map((fields) => ({
    label: 'a form body',
    body: Object.entries(fields).map(([key, value]) => `${key}=${percentEncode(value)}`).join('&'),
    contentType: 'application/x-www-form-urlencoded',
}));

/** a body for an operation (its JSON schema, when it documents one) */
export function payloadFor(schema: JsonSchema | undefined, mediaTypes: readonly string[], ids: readonly string[]): fc.Arbitrary<Payload> {
    const json = (label: string) => (value: unknown): Payload => ({ label, body: JSON.stringify(value), contentType: 'application/json' });
    const shaped = schema?.type === 'object' || schema?.properties ? schema : { type: 'object', properties: {} };
    return fc.oneof(
        { weight: 6, arbitrary: mutatedObject(shaped, ids).map(json('a mutated object')) },
        { weight: 1, arbitrary: plausible(shaped, ids).map(json('a schema-shaped object')) },
        { weight: 1, arbitrary: hostileValue.map(json('a hostile top-level value')) },
        { weight: 3, arbitrary: rawPayload },
        { weight: mediaTypes.includes('application/x-www-form-urlencoded') ? 3 : 1, arbitrary: formPayload },
        { weight: 1, arbitrary: fc.constant<Payload>({ label: 'no body' }) },
    );
}

/** percent-encodes every byte of the UTF-8 form but unreserved characters (a lone surrogate becomes U+FFFD) */
function percentEncode(value: string): string {
    let out = '';
    for (const byte of Buffer.from(value, 'utf8')) {
        const char = String.fromCharCode(byte);
        out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
}

/** percent sequences that do not decode to valid UTF-8, or decode to NUL and separators */
const BROKEN_ESCAPES = ['%', '%z', '%zz', '%ff', '%fe%ff', '%c3%28', '%ed%a0%80', '%e0%a4%a', '%00', '%2f', '%2e%2e', '%5b', '%5d', '%26%3d'];

/**
 * A path parameter: an existing id of the fuzz realm, an unknown UUID, or junk (non-UUID, huge,
 * broken encodings). Never the bootstrap admin or the master realm by name: a fuzzed update that
 * happens to be valid would change the admin's password and lock the rest of the run out.
 */
export function pathValue(ids: readonly string[]): fc.Arbitrary<string> {
    return fc.oneof(
        { weight: 4, arbitrary: ids.length ? fc.constantFrom(...ids) : fc.uuid() },
        { weight: 1, arbitrary: fc.uuid() },
        { weight: 2, arbitrary: fc.constantFrom('@me', '@schema', '0', '-1', 'null', 'undefined', '__proto__', 'constructor', '..', ...BROKEN_ESCAPES) },
        { weight: 2, arbitrary: nastyString.filter((text) => text.length > 0).map(percentEncode) },
        { weight: 1, arbitrary: fc.integer({ min: 101, max: 8_000 }).map((length) => 'x'.repeat(length)) },
        { weight: 1, arbitrary: fc.uuid().map((id) => `${id}${percentEncode('\u0000')}`) },
    );
}

const QUERY_WORDS = [
    'id', 'name', '-name', '+name', 'realm', 'realmId', 'realm.name', 'realm.id', 'createdAt', '-createdAt', '+secret', '+email', '+password',
    'secret', 'password', 'user', 'client', 'role', 'permission', 'policy', 'scope', 'parent', 'children', 'session', '!', '~', '~%', '%_', 'null', '!null',
    '<', '>=2020-01-01', '<=x', 'true', 'false', '1', '0', '-1', '1e400', 'NaN', 'Infinity', '99999999999999999999', '1.5', ',', ',,,', 'a,b,,c',
    'id,name,id', '*', '__proto__', 'constructor', 'prototype', "' OR 1=1 --", '") OR ("1"="1', '`name`', 'name;drop table auth_users',
];

const queryValue: fc.Arbitrary<string> = fc.oneof(
    { weight: 12, arbitrary: fc.array(fc.constantFrom(...QUERY_WORDS), { minLength: 1, maxLength: 4 }).map((words) => percentEncode(words.join(','))) },
    { weight: 6, arbitrary: nastyString.map(percentEncode) },
    { weight: 3, arbitrary: fc.constantFrom(...BROKEN_ESCAPES) },
    { weight: 3, arbitrary: fc.integer({ min: 300, max: 20_000 }).map((length) => 'a'.repeat(length)) },
    { weight: 3, arbitrary: fc.uuid() },
    // comma lists around the server's cap and past what a statement binds (SQLite 32,766 parameters, PostgreSQL 65,535)
    { weight: 2, arbitrary: fc.constantFrom(1_000, 1_001, 33_000, 66_000).map((count) => Array.from({ length: count }, (_, index) => `v${index}`).join(',')) },
);

const EXTRA_KEYS = [
    'filter[realm.name]', 'filter[realmId]', 'filter[__proto__]', 'filter[constructor][prototype]', 'filter[nope]', 'filter', 'filter[]', 'filter[name][x]',
    'fields[user]', 'fields[]', 'page', 'page[limit][x]', 'page[nope]', 'include[]', 'sort[]', '__proto__[polluted]', 'constructor[prototype][polluted]', '%zz', '', 'a'.repeat(300),
];

/** a query string over the operation's parameters and stray keys; keys repeat sometimes (arrays) */
export function queryFor(parameters: readonly string[]): fc.Arbitrary<string> {
    const key = parameters.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...parameters) }, { weight: 1, arbitrary: fc.constantFrom(...EXTRA_KEYS) }) : fc.constantFrom(...EXTRA_KEYS);
    return fc.array(fc.tuple(key, queryValue, fc.boolean()), { maxLength: 5 })
        .map((pairs) => pairs.map(([name, value, bare]) => (bare && value.length < 8 ? name : `${name}=${value}`)).join('&'));
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** malformed credentials (printable ASCII, as a header value must be): broken Basic, forged or junk Bearer, other schemes */
export const hostileAuthorization: fc.Arbitrary<string> = fc.oneof(
    fc.constantFrom(
        'Basic', 'Basic ', 'Basic !!!!', `Basic ${b64('no-colon')}`, `Basic ${b64(':')}`, `Basic ${b64('admin:')}`, `Basic ${b64(':start123')}`,
        'Bearer', 'Bearer ', 'Bearer a.b.c', 'Bearer ....', `Bearer ${b64url({ alg: 'none' })}.${b64url({ sub: 'admin' })}.`,
        `Bearer ${b64url({ alg: 'HS256', kid: '../../etc/passwd' })}.${b64url({ sub: 'x' })}.c2ln`, 'Digest username="admin"', 'basic YWRtaW46c3RhcnQxMjM=',
        'Bearer  x', 'Basic YWRtaW46c3RhcnQxMjM= extra', `Bearer ${'x'.repeat(9_000)}`,
    ),
    fc.tuple(nastyString, nastyString).map(([user, password]) => `Basic ${b64(`${user}:${password}`)}`),
    fc.string({ unit: 'binary-ascii', maxLength: 64 }).map((text) => `Bearer ${text.replace(/[^\x20-\x7e]/g, '')}`),
);
