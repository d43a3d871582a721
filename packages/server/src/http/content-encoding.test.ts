import { Readable } from 'node:stream';
import { createBrotliCompress, createDeflate, createGzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BODY_LIMIT, contentCodingOf, decodedBody, MAX_RATIO } from './content-encoding.js';

/** An endless body of zeros, compressed as it is read: a zip bomb with no end at all. */
function endlessBomb(compress: () => NodeJS.ReadWriteStream) {
    const zeros = Buffer.alloc(64 * 1024);
    const source = new Readable({ read() { this.push(zeros); } });
    return { source, compressed: source.pipe(compress()) };
}

async function drain(stream: NodeJS.ReadableStream): Promise<{ decoded: number; error: unknown }> {
    let decoded = 0;
    try {
        for await (const chunk of stream as AsyncIterable<Buffer>) decoded += chunk.length;
    } catch (error) {
        return { decoded, error };
    }
    return { decoded, error: undefined };
}

describe('content-encoding: streaming decoding of request bodies (spec Limits: the 10 MB cap applies after decompression)', () => {
    it('stops an endless zip bomb at the expansion bound, long before the 10 MB cap, for every coding', async () => {
        for (const [coding, compress] of [['gzip', createGzip], ['deflate', createDeflate], ['br', createBrotliCompress]] as const) {
            const bomb = endlessBomb(compress);
            const body = decodedBody(coding, bomb.compressed) as NodeJS.ReadableStream & { receivedEncodedLength: number };
            const { decoded, error } = await drain(body);
            bomb.source.destroy();
            expect(error, coding).toMatchObject({ statusCode: 413 });
            // refused at the first chunk past a MiB that breaks the ratio: at most a few chunks were let through
            expect(decoded, coding).toBeLessThan(2 * 1024 * 1024);
            expect(decoded, coding).toBeLessThan(BODY_LIMIT);
            // the first MiB is let through whatever the ratio (the refused chunk is not)
            expect(decoded, coding).toBeGreaterThan(512 * 1024);
            expect(body.receivedEncodedLength * MAX_RATIO, coding).toBeLessThan(2 * 1024 * 1024);
        }
    });

    it('names the coding to undo: one of gzip, x-gzip, deflate, br; identity and empty are none; others are refused with 415', () => {
        expect(contentCodingOf(undefined)).toBeNull();
        expect(contentCodingOf('identity')).toBeNull();
        expect(contentCodingOf(' , identity')).toBeNull();
        expect(contentCodingOf('GZIP')).toBe('gzip');
        expect(contentCodingOf('x-gzip')).toBe('x-gzip');
        expect(contentCodingOf('identity, br')).toBe('br');
        for (const header of ['compress', 'zstd', 'gzip, deflate', 'toString', '__proto__']) {
            expect(() => contentCodingOf(header), header).toThrow(expect.objectContaining({ statusCode: 415 }) as Error);
        }
    });
});
