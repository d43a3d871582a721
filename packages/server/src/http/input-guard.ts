import type { FastifyInstance } from 'fastify';
import { validationFailed, type Issue } from '../errors/app-error.js';
import { contentCodingOf, decodedBody } from './content-encoding.js';

/**
 * A lone surrogate (a `\ud800` escape in JSON) is no character: UTF-8 cannot encode it, so each
 * database replaced or refused it its own way (RFC 8259 §8.2). In a `u` regex a
 * well-formed pair is one code point, so \p{Cs} matches only a lone half.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/** Deeper bodies are refused before anything recurses over them (JSON.stringify, validators). */
const MAX_DEPTH = 32;

/**
 * Checks every request before validation: no NUL character anywhere (PostgreSQL refuses U+0000 in
 * text, which would surface as a 500) and no body nested deeper than MAX_DEPTH. Both are client
 * input, so they answer 400 with issues (API.md §1: never a 500 for anything a client sent).
 */
function inspect(value: unknown, path: (string | number)[], depth: number, issues: Issue[]): void {
    if (issues.length > 10) return;
    if (typeof value === 'string') {
        if (value.includes('\u0000')) issues.push({ path, code: 'invalid_character', message: 'must not contain a NUL character' });
        if (LONE_SURROGATE.test(value)) issues.push({ path, code: 'invalid_encoding', message: 'must not contain a lone surrogate' });
        return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (depth > MAX_DEPTH) {
        issues.push({ path, code: 'too_deep', message: `is nested deeper than ${MAX_DEPTH} levels` });
        return;
    }
    if (Array.isArray(value)) {
        value.forEach((item, index) => inspect(item, [...path, index], depth + 1, issues));
        return;
    }
    for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) issues.push({ path: [...path, key], code: 'invalid_character', message: 'must not contain a NUL character' });
        if (LONE_SURROGATE.test(key)) issues.push({ path: [...path, key], code: 'invalid_encoding', message: 'must not contain a lone surrogate' });
        inspect(item, [...path, key], depth + 1, issues);
    }
}

export function registerInputGuard(app: FastifyInstance): void {
    // a compressed body is decoded first (the 10 MB cap and the expansion bound count decoded
    // bytes, spec Limits); the JSON and form parsers check the decoded bytes are UTF-8 (http/utf8-body.ts)
    app.addHook('preParsing', async (request, _reply, payload) => {
        const coding = contentCodingOf(request.headers['content-encoding']);
        return coding === null ? payload : decodedBody(coding, payload);
    });
    app.addHook('preValidation', async (request) => {
        const issues: Issue[] = [];
        if (request.url.includes('\u0000') || /%00/i.test(request.url)) issues.push({ path: ['url'], code: 'invalid_character', message: 'must not contain a NUL character' });
        if (request.body !== undefined) inspect(request.body, [], 0, issues);
        if (issues.length > 0) throw validationFailed(issues);
    });
}
