import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { MAX_RATIO } from '../../src/http/content-encoding.js';
import { createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

/**
 * Gzip, deflate and br request bodies are decoded, streaming, before the UTF-8
 * check and the parsers; the 10 MB cap counts decoded bytes (spec Limits) and a body expanding more
 * than MAX_RATIO times past its first MiB is refused; corrupt data answers 400, other codings 415.
 * Decoding happens before any statement, so the embedded database is the only one it runs on.
 */
describeEachDialect('compressed request bodies (spec Limits: the 10 MB cap applies after decompression)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    beforeAll(async () => {
        realm = await createRealm(app, 'compressed');
    });

    const roleCount = async () => Number((await app.deps.db.selectFrom('auth_roles').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const post = (payload: Buffer, encoding: string, contentType = 'application/json', url = '/roles', as?: string | null) =>
        app.request({ method: 'POST', url, payload, headers: { 'content-type': contentType, 'content-encoding': encoding }, ...(as === undefined ? {} : { as }) });

    it('decodes gzip, deflate, br and identity bodies on JSON and form routes', async () => {
        const codings: [string, (input: Buffer) => Buffer][] = [
            ['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync], ['identity', (input) => input], ['GZip, identity', gzipSync],
        ];
        for (const [coding, compress] of codings) {
            const name = `zipped-${coding.replace(/\W/g, '')}`;
            const response = await post(compress(Buffer.from(JSON.stringify({ realmId: realm, name }))), coding);
            expect(response.statusCode, `${coding}: ${response.body}`).toBe(201);
            expect((response.json() as { data: { name: string } }).data.name).toBe(name);
        }
        const token = await post(gzipSync(Buffer.from('grant_type=password&username=admin&password=start123')), 'gzip', 'application/x-www-form-urlencoded', '/token', null);
        expect(token.statusCode, token.body).toBe(200);
        expect(token.json()).toHaveProperty('access_token');
    });

    it('refuses a zip bomb and a body over 10 MB once decoded with 413, and writes nothing', async () => {
        const before = await roleCount();
        // 50 MB of zeros inside a JSON string: about 50 KB of gzip, 1,000:1
        const zeros = Buffer.concat([Buffer.from(`{"realmId":"${realm}","name":"bomb","description":"`), Buffer.alloc(50 * 1024 * 1024, 0x30), Buffer.from('"}')]);
        for (const [coding, compress] of [['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync]] as const) {
            const bomb = await post(compress(zeros), coding);
            expect(bomb.statusCode, `${coding}: ${bomb.body}`).toBe(413);
            expect(bomb.json()).toMatchObject({ statusCode: 413, code: 'payload_too_large' });
            expect((bomb.json() as { message: string }).message).toContain(`${MAX_RATIO} times`);
        }
        // random text compresses about 4:3: under 10 MB on the wire, 11 MB decoded
        const big = Buffer.from(JSON.stringify({ realmId: realm, name: 'big', description: randomBytes(8 * 1024 * 1024).toString('base64') }));
        const compressed = gzipSync(big);
        expect(compressed.length).toBeLessThan(10 * 1024 * 1024);
        const tooLarge = await post(compressed, 'gzip');
        expect(tooLarge.statusCode, tooLarge.body).toBe(413);
        expect(tooLarge.json()).toMatchObject({ statusCode: 413, code: 'payload_too_large' });
        expect((tooLarge.json() as { message: string }).message).toContain('10 MB after decompression');
        expect(await roleCount()).toBe(before);
    });

    it('answers 400 for corrupt or truncated data and for invalid UTF-8 inside it, 415 for other codings', async () => {
        const body = Buffer.from(JSON.stringify({ realmId: realm, name: 'corrupt' }));
        const gzip = gzipSync(body);
        const corrupt = Buffer.from(gzip);
        corrupt.fill(0x55, 10, 20);
        const cases: [string, Buffer, string][] = [
            ['gzip', corrupt, 'invalid_compression'],
            ['gzip', gzip.subarray(0, gzip.length - 12), 'invalid_compression'],
            ['gzip', body, 'invalid_compression'],
            ['deflate', gzip, 'invalid_compression'],
            ['br', Buffer.from('not brotli at all'), 'invalid_compression'],
            ['gzip', gzipSync(Buffer.concat([Buffer.from(`{"realmId":"${realm}","name":"bad`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])), 'invalid_encoding'],
        ];
        const before = await roleCount();
        for (const [coding, payload, code] of cases) {
            const response = await post(payload, coding);
            expect(response.statusCode, `${coding} ${code}: ${response.body}`).toBe(400);
            expect(response.json()).toMatchObject({ code: 'bad_request', issues: [{ path: ['body'], code }] });
        }
        for (const coding of ['compress', 'zstd', 'gzip, br', 'x-unknown']) {
            const response = await post(gzip, coding);
            expect(response.statusCode, `${coding}: ${response.body}`).toBe(415);
            expect(response.json()).toMatchObject({ statusCode: 415, code: 'unsupported_media_type', issues: [{ path: ['headers', 'content-encoding'], code: 'unsupported_encoding' }] });
        }
        const get = await app.request({ method: 'GET', url: '/roles', headers: { 'content-encoding': 'zstd' } });
        expect(get.statusCode).toBe(415);
        expect(get.json()).toMatchObject({ code: 'unsupported_media_type' });
        // on a protocol route the RFC 6749 §5.2 error beside it is invalid_request
        const token = await post(gzip, 'zstd', 'application/x-www-form-urlencoded', '/token', null);
        expect(token.statusCode).toBe(415);
        expect(token.json()).toMatchObject({ code: 'unsupported_media_type', error: 'invalid_request' });
        expect(await roleCount()).toBe(before);
    });
}, ['sqlite']);
