import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ErrorCode } from '@realmgate/core';
import { AppError } from '../errors/app-error.js';

/** Spec Limits: request bodies are capped at 10 MB after decompression. */
export const BODY_LIMIT = 10 * 1024 * 1024;

/**
 * The expansion bound: past the first MiB of decoded output, a body may not decode to more than
 * MAX_RATIO times the compressed bytes read so far. Real JSON and forms compress 3–20:1; a zip bomb
 * (gzip reaches ~1,000:1, brotli far more) is cut off after about a MiB of work instead of
 * inflating to the 10 MB cap.
 */
export const MAX_RATIO = 100;
const RATIO_FLOOR = 1024 * 1024;

/** RFC 9110 §8.4.1: the content codings decoded (`x-gzip` is gzip, §8.4.1.3). */
const DECODERS = {
    gzip: createGunzip,
    'x-gzip': createGunzip,
    deflate: createInflate,
    br: createBrotliDecompress,
} as const;
type Coding = keyof typeof DECODERS;

function unsupported(message: string): AppError {
    return new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, message, {
        issues: [{ path: ['headers', 'content-encoding'], code: 'unsupported_encoding', message: 'is not supported' }],
    });
}

/**
 * The one coding to undo, null for none (absent, empty, `identity`). RFC 9110 §15.5.16: a coding
 * the server does not decode answers 415; so does a chain of codings (none is sent in practice,
 * and one decoder keeps the expansion bound simple).
 */
export function contentCodingOf(header: string | undefined): Coding | null {
    if (header === undefined) return null;
    const codings = header.split(',').map((part) => part.trim().toLowerCase()).filter((part) => part !== '' && part !== 'identity');
    if (codings.length === 0) return null;
    if (codings.length > 1) throw unsupported('Only one Content-Encoding (gzip, deflate or br) is accepted.');
    const coding = codings[0] as string;
    if (!Object.hasOwn(DECODERS, coding)) throw unsupported('Content-Encoding must be gzip, deflate, br or identity.');
    return coding as Coding;
}

function tooLarge(message: string): AppError {
    return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, message);
}

/**
 * Counts the decoded bytes and refuses, as they arrive, a body over BODY_LIMIT or past the
 * expansion bound. `receivedEncodedLength` is what Fastify's body reader compares with
 * Content-Length (the compressed size) and with its own limit.
 */
class DecodedBody extends Transform {
    receivedEncodedLength = 0;

    private decoded = 0;

    override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
        this.decoded += chunk.length;
        if (this.decoded > BODY_LIMIT) {
            callback(tooLarge('The request body exceeds 10 MB after decompression.'));
            return;
        }
        if (this.decoded > RATIO_FLOOR && this.decoded > MAX_RATIO * this.receivedEncodedLength) {
            callback(tooLarge(`The request body expands more than ${MAX_RATIO} times when decompressed.`));
            return;
        }
        callback(null, chunk);
    }
}

/**
 * The request body with its content coding undone, streaming: no more than a zlib window and one
 * chunk is held beyond what the body reader keeps, and a refusal stops the decoder at once.
 */
export function decodedBody(coding: Coding, payload: NodeJS.ReadableStream): NodeJS.ReadableStream {
    const decoder = DECODERS[coding]();
    const body = new DecodedBody();
    const count = (chunk: Buffer | string) => {
        body.receivedEncodedLength += chunk.length;
    };
    // nothing more is read or decoded once the body is refused; Fastify answers with
    // `Connection: close`, so the rest of the request is never waited for
    const halt = () => {
        payload.removeListener('data', count);
        payload.unpipe(decoder);
        decoder.destroy();
    };
    const stop = (error: Error) => {
        halt();
        body.destroy(error);
    };
    payload.on('data', count);
    payload.on('error', stop);
    decoder.on('error', () => stop(new AppError(ErrorCode.BAD_REQUEST, `The body is not valid ${coding} data.`, {
        issues: [{ path: ['body'], code: 'invalid_compression', message: `is not valid ${coding} data` }],
    })));
    body.on('error', halt);
    payload.pipe(decoder).pipe(body);
    return body;
}
