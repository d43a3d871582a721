import { Transform, type TransformCallback } from 'node:stream';
import { validationFailed, type AppError } from '../errors/app-error.js';

/** The text bodies the server parses: JSON (RFC 8259 §8.1: UTF-8) and forms (WHATWG URL §5.1: UTF-8). */
type TextBody = 'json' | 'form';

function textBodyOf(contentType: string | undefined): TextBody | null {
    const essence = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (essence === 'application/json' || essence.endsWith('+json')) return 'json';
    if (essence === 'application/x-www-form-urlencoded') return 'form';
    return null;
}

function notUtf8(where: string): AppError {
    return validationFailed([{ path: ['body'], code: 'invalid_encoding', message: `${where} is not valid UTF-8` }]);
}

/**
 * The bytes a form's percent-escapes stand for must be UTF-8 too; the form parser would replace
 * them with U+FFFD silently. A `%` that starts no escape stays literal, as the parser keeps it.
 */
function formIsUtf8(text: string): boolean {
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
 * Passes the body through unchanged while a fatal decoder checks that it is UTF-8: the default
 * decoding replaces a broken sequence with U+FFFD, and each database then stored something else
 * (issue 12 item 12). A broken body fails the stream, which the body reader answers with the
 * error's own status: 400 with an issue.
 */
class Utf8Check extends Transform {
    private readonly decoder = new TextDecoder('utf-8', { fatal: true });

    private text = '';

    constructor(private readonly kind: TextBody) {
        super();
    }

    override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback): void {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        try {
            const decoded = this.decoder.decode(bytes, { stream: true });
            if (this.kind === 'form') this.text += decoded;
        } catch {
            callback(notUtf8('The body'));
            return;
        }
        callback(null, bytes);
    }

    override _flush(callback: TransformCallback): void {
        try {
            this.text += this.decoder.decode();
        } catch {
            callback(notUtf8('The body'));
            return;
        }
        callback(this.kind === 'form' && !formIsUtf8(this.text) ? notUtf8('A percent-encoded form value') : null);
    }
}

/** Methods whose body Fastify never reads (its `bodyless` set): nothing parses it, so nothing checks it. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/** The request body stream, checked for UTF-8 when the server will parse it as text. */
export function utf8CheckedBody<S extends NodeJS.ReadableStream>(method: string, contentType: string | undefined, payload: S): S | Transform {
    const kind = textBodyOf(contentType);
    if (kind === null || BODYLESS.has(method)) return payload;
    const checked = new Utf8Check(kind);
    payload.on('error', (error) => checked.destroy(error));
    // a decoded body's compressed size is what Fastify compares with Content-Length
    Object.defineProperty(checked, 'receivedEncodedLength', { get: () => (payload as { receivedEncodedLength?: number }).receivedEncodedLength });
    // The body reader listens for the error when it reads the stream. An answer sent before the body
    // is read leaves the stream unread, and a stream error without a listener is an uncaught exception
    // that ends the process: a GET with a broken JSON body from anyone stopped the server (issue 12
    // fuzzing). The error is the reader's to answer; unread, it has no one to reach.
    checked.on('error', () => undefined);
    return payload.pipe(checked);
}
