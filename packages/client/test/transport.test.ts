import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ErrorCode } from '@realmgate/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type RealmgateClient } from '../src/index.js';
import { caught } from './listening.js';

/*
 * The client's transport against a node:http server whose answers each test scripts: retries of
 * idempotent calls on 5xx and network failures with exponential backoff and jitter, Retry-After,
 * no retry of a POST, the per-attempt timeout combined with the caller's signal, and the cause of
 * a network failure. Nothing waits for real: the retry policy's `sleep` records the delays.
 */

type Answer = (request: IncomingMessage, response: ServerResponse) => void;
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
};
const unavailable = (headers: Record<string, string> = {}) => json(503, { statusCode: 503, code: 'temporarily_unavailable', message: 'busy' }, headers);
const ok = json(200, { data: [], meta: { total: 0, limit: 50, offset: 0 } });
/** the connection dropped without an answer: fetch fails with a network error */
const hangUp: Answer = (request) => request.socket.destroy();

describe('client transport: retries, timeout, cause', () => {
    let server: Server;
    let baseUrl: string;
    let script: Answer[] = [];
    let seen: string[] = [];
    /** answers kept open (never answered) until the suite ends */
    const held: ServerResponse[] = [];
    let waits: number[] = [];
    const policy = { retries: 3, baseDelayMilliseconds: 100, random: () => 0.5, sleep: async (milliseconds: number) => {
        waits.push(milliseconds);
    } };
    let client: RealmgateClient;

    beforeAll(async () => {
        server = createServer((request, response) => {
            seen.push(`${request.method} ${request.url}`);
            const answer = script.shift();
            if (answer) answer(request, response);
            else held.push(response);
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const address = server.address();
        baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    afterAll(async () => {
        for (const response of held) response.socket?.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    beforeEach(() => {
        script = [];
        seen = [];
        waits = [];
        client = createClient({ baseUrl, retry: policy });
    });

    it('retries a GET answered 503 and returns the 200 that follows, backing off exponentially with jitter', async () => {
        script = [unavailable(), unavailable(), ok];
        expect(await client.users.list()).toEqual({ data: [], meta: { total: 0, limit: 50, offset: 0 } });
        expect(seen).toEqual(['GET /users', 'GET /users', 'GET /users']);
        // equal jitter with random 0.5: three quarters of 100 ms, then of 200 ms
        expect(waits).toEqual([75, 150]);
    });

    it('spreads the waits by the jitter: the random source decides within each step', async () => {
        client = createClient({ baseUrl, retry: { ...policy, random: () => 0 } });
        script = [unavailable(), unavailable(), ok];
        await client.getUsers();
        expect(waits).toEqual([50, 100]);
    });

    it('honours Retry-After on a 503 instead of the backoff', async () => {
        script = [unavailable({ 'retry-after': '2' }), ok];
        await client.getUsers();
        expect(waits).toEqual([2000]);
    });

    it('does not wait for a Retry-After longer than maxDelaySeconds: the 503 is thrown', async () => {
        client = createClient({ baseUrl, retry: { ...policy, maxDelaySeconds: 1 } });
        script = [unavailable({ 'retry-after': '120' }), ok];
        expect(await caught(client.getUsers())).toMatchObject({ statusCode: 503, retryAfter: 120 });
        expect(waits).toEqual([]);
        script = [];
    });

    it('gives up after `retries` attempts with the last answer', async () => {
        script = [unavailable(), unavailable(), unavailable(), unavailable(), ok];
        expect(await caught(client.getUsers())).toMatchObject({ statusCode: 503 });
        expect(seen).toHaveLength(4);
        expect(waits).toEqual([75, 150, 300]);
        script = [];
    });

    it('retries PUT and DELETE (idempotent), never a POST', async () => {
        script = [unavailable(), json(200, { data: { id: 'x' }, meta: {} })];
        await client.users.delete('x');
        expect(seen).toEqual(['DELETE /users/x', 'DELETE /users/x']);
        seen = [];
        script = [unavailable(), ok];
        expect(await caught(client.users.create({ name: 'ada' }))).toMatchObject({ statusCode: 503 });
        expect(seen).toEqual(['POST /users']);
        script = [];
    });

    it('retries a network failure of a GET and keeps its cause', async () => {
        script = [hangUp, ok];
        await client.getUsers();
        expect(seen).toHaveLength(2);
        expect(waits).toEqual([75]);
        script = [hangUp];
        const failed = await caught(createClient({ baseUrl, retry: false }).getUsers());
        expect(failed).toMatchObject({ statusCode: 0, code: ErrorCode.INTERNAL_ERROR });
        expect(failed.message).toContain('fetch failed');
        expect(failed.cause).toBeInstanceOf(TypeError);
        expect((failed.cause as Error & { cause?: unknown }).cause).toBeTruthy();
    });

    it('a network failure of a POST is not retried', async () => {
        script = [hangUp, ok];
        expect(await caught(client.users.create({ name: 'ada' }))).toMatchObject({ statusCode: 0 });
        expect(seen).toEqual(['POST /users']);
        script = [];
    });

    it('times out an attempt that gets no answer (AbortSignal.timeout), retries it, and names the timeout as the cause', async () => {
        // attempts are counted where the client makes them: on a loaded machine an attempt may time out
        // before the server has parsed its request, so the server's own log would depend on timing
        const attempts: string[] = [];
        client = createClient({
            baseUrl, retry: { ...policy, retries: 1 }, timeout: 20,
            fetch: (input, init) => {
                attempts.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
                return fetch(input, init);
            },
        });
        // neither attempt is answered: both time out
        const failed = await caught(client.getUsers());
        expect(failed.message).toMatch(/timed out after 20 ms/);
        expect((failed.cause as Error).name).toBe('TimeoutError');
        expect(attempts).toEqual(['GET /users', 'GET /users']);
        // a call's own timeout wins over the client's
        expect((await caught(client.getUsers({ timeout: 10 }))).message).toMatch(/after 10 ms/);
    });

    it('the caller\'s signal aborts the call, combined with the timeout, and is never retried', async () => {
        client = createClient({ baseUrl, retry: policy, timeout: 60_000 });
        const controller = new AbortController();
        const pending = caught(client.getUsers({ signal: controller.signal }));
        // aborted once the server holds the request: the abort, not an answer, ends it
        await new Promise<void>((resolve) => {
            const poll = () => (seen.length > 0 ? resolve() : setImmediate(poll));
            poll();
        });
        controller.abort(new Error('navigated away'));
        const failed = await pending;
        expect(failed.cause).toEqual(new Error('navigated away'));
        expect(seen).toHaveLength(1);
        expect(waits).toEqual([]);
    });

    it('retry: false sends once, 5xx included', async () => {
        client = createClient({ baseUrl, retry: false });
        script = [unavailable(), ok];
        expect(await caught(client.getUsers())).toMatchObject({ statusCode: 503 });
        expect(seen).toHaveLength(1);
        script = [];
    });
});
