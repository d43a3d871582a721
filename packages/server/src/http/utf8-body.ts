import { isUtf8 } from 'node:buffer';
import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { parse as parseForm } from 'fast-querystring';
import { validationFailed, type AppError } from '../errors/app-error.js';

function notUtf8(where: string): AppError {
    return validationFailed([{ path: ['body'], code: 'invalid_encoding', message: `${where} is not valid UTF-8` }]);
}

/**
 * The bytes a form's percent-escapes stand for must be UTF-8 too; a decoder would replace them
 * with U+FFFD silently. A `%` that starts no escape stays literal, as the parser keeps it.
 */
function formIsUtf8(text: string): boolean {
    // most forms (a token request) escape nothing that could be broken: no `%`, nothing to check
    if (!text.includes('%')) return true;
    for (const part of text.split(/[&=]/)) {
        try {
            decodeURIComponent(part.replace(/\+/g, ' ').replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
        } catch {
            return false;
        }
    }
    return true;
}


/**
 * JSON (RFC 8259 §8.1) and forms (WHATWG URL §5.1) are UTF-8: their parsers take the body's bytes
 * (decoded from any content coding first: http/content-encoding.ts) and refuse a broken sequence
 * with 400 and an issue, before anything reads them as text — the default decoding replaces a
 * broken sequence with U+FFFD, and each database then stored something else.
 * A check of the whole buffer (node:buffer isUtf8) costs far less than a checking stream on every
 * request with a body.
 */
function utf8JsonParser(json: FastifyBodyParser<string>): FastifyBodyParser<Buffer> {
    return (request, body, done) => {
        if (!isUtf8(body)) return done(notUtf8('The body'));
        json(request, body.toString('utf8'), done);
    };
}

/** The form parser (fast-querystring, as @fastify/formbody parses): repeated names become arrays. */
const utf8FormParser: FastifyBodyParser<Buffer> = (_request, body, done) => {
    if (!isUtf8(body)) return done(notUtf8('The body'));
    const text = body.toString('utf8');
    if (!formIsUtf8(text)) return done(notUtf8('A percent-encoded form value'));
    done(null, parseForm(text));
};

/** Registers both under their caps (http/middleware-settings.ts decides the caps). */
export function addUtf8Parsers(app: FastifyInstance, limits: { json: number | null; form: number | null }): void {
    if (limits.json !== null) {
        app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: limits.json }, utf8JsonParser(app.getDefaultJsonParser('error', 'error')));
    }
    if (limits.form !== null) {
        app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit: limits.form }, utf8FormParser);
    }
}
