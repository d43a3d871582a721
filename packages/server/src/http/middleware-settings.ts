import { addUtf8Parsers } from './utf8-body.js';
import type { FastifyInstance } from 'fastify';
import { sizeInBytes } from '../config/parsers.js';
import type { BodyParserSetting, MiddlewareBody, MiddlewareQuery } from '../config/schema.js';
import { validationFailed, type Issue } from '../errors/app-error.js';
import { BODY_LIMIT } from './content-encoding.js';

/*
 * The spec's middleware settings (Limits: "middlewareBody, middlewareCookie and middlewareQuery are
 * honored; a middlewareBody object applies per parser on top of the default, and a parser stays on
 * and capped unless turned off (false) or given its own limit").
 */

type ParserName = 'json' | 'urlencoded' | 'text';

/** A parser's cap in bytes, or null when it is off. Never above the 10 MB cap of every request. */
function parserLimit(setting: MiddlewareBody, parser: ParserName): number | null {
    if (setting === false) return null;
    const own: BodyParserSetting | undefined = setting === true ? undefined : setting[parser];
    if (own === false) return null;
    if (own === undefined || own === true) return BODY_LIMIT;
    return Math.min(sizeInBytes(own.limit) ?? BODY_LIMIT, BODY_LIMIT);
}

/**
 * The JSON, form and text parsers under their caps; one turned off is removed, so its content
 * type answers 415 like any other unsupported one. A body over a parser's cap answers 413 (Fastify
 * counts the decoded bytes: the content-encoding step runs before the parser).
 */
export async function registerBodyParsers(app: FastifyInstance, setting: MiddlewareBody): Promise<void> {
    const json = parserLimit(setting, 'json');
    const text = parserLimit(setting, 'text');
    const form = parserLimit(setting, 'urlencoded');
    app.removeContentTypeParser(['application/json', 'text/plain']);
    // Fastify's own JSON parser (prototype poisoning refused) and the form parser, each refusing a
    // body that is not UTF-8 (http/utf8-body.ts), with these caps
    addUtf8Parsers(app, { json, form });
    if (text !== null) app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: text }, (_request, body, done) => done(null, body));
}

const QUERY_DEFAULTS = { depth: 5, arrayLimit: 100, parameterLimit: 1000 } as const;

/**
 * middlewareQuery limits over the parsed query string: bracket levels in one key (`filter[a][b]`
 * is 2), values of one repeated key, keys in all. `false` lifts them: the query string is still
 * parsed, as the protocol routes (GET /authorize, RFC 6749 §4.1.1) cannot do without it.
 */
function queryIssues(query: unknown, setting: MiddlewareQuery): Issue[] {
    if (setting === false || typeof query !== 'object' || query === null) return [];
    const limits = { ...QUERY_DEFAULTS, ...(setting === true ? {} : setting) };
    const entries = Object.entries(query);
    const issues: Issue[] = [];
    if (entries.length > limits.parameterLimit) {
        issues.push({ path: ['query'], code: 'too_many_parameters', message: `has more than ${limits.parameterLimit} parameters` });
        return issues;
    }
    for (const [key, value] of entries) {
        const depth = (key.match(/\[/g) ?? []).length;
        if (depth > limits.depth) issues.push({ path: ['query', key], code: 'too_deep', message: `is nested deeper than ${limits.depth} levels` });
        if (Array.isArray(value) && value.length > limits.arrayLimit) {
            issues.push({ path: ['query', key], code: 'too_many_values', message: `has more than ${limits.arrayLimit} values` });
        }
        if (issues.length > 10) break;
    }
    return issues;
}

/** The query limits, checked before validation (400 with issues), and the Cookie switch. */
export function registerRequestSettings(app: FastifyInstance, settings: { query: MiddlewareQuery; cookie: boolean }): void {
    app.addHook('preValidation', async (request) => {
        const issues = queryIssues(request.query, settings.query);
        if (issues.length > 0) throw validationFailed(issues);
    });
    // middlewareCookie false: the Cookie header is not read (the cookie plugin stays, so answers can still set cookies)
    if (!settings.cookie) app.addHook('onRequest', async (request) => {
        request.cookies = {};
    });
}
