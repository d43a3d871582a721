import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { OutboundRefusedError, type OutboundPolicy } from './address-policy.js';
import { guardedLookup, type Resolver } from './guarded-lookup.js';

/** The part of `fetch` the server's outbound callers use (openid-client's customFetch, back-channel logout). */
export type OutboundFetch = (url: string | URL, init?: Pick<RequestInit, 'method' | 'headers' | 'body' | 'signal' | 'redirect'>) => Promise<Response>;

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function responseOf(message: IncomingMessage, method: string): Response {
    const headers = new Headers();
    for (let index = 0; index + 1 < message.rawHeaders.length; index += 2) headers.append(message.rawHeaders[index]!, message.rawHeaders[index + 1]!);
    const status = message.statusCode ?? 0;
    const empty = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
    if (empty) message.resume();
    const body = empty ? null : Readable.toWeb(message) as unknown as ReadableStream<Uint8Array>;
    return new Response(body, { status, statusText: message.statusMessage ?? '', headers });
}

/**
 * `fetch` over node:http(s) whose connections go through the policy: the host as written is judged
 * first (an address literal never reaches a resolver), then every address the name resolves to
 * (guarded-lookup.ts). Node's built-in fetch takes no `lookup`, hence this small client. Redirects
 * are never followed — a redirect to an internal address would step around the check, and none of
 * the callers wants one (openid-client and back-channel logout ask for `redirect: 'manual'`).
 */
export function createOutboundFetch(policy: OutboundPolicy, resolver?: Resolver): OutboundFetch {
    const lookup = guardedLookup(policy, resolver);
    return async (input, init = {}) => {
        const url = new URL(String(input));
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${url.protocol} is not an http(s) URL`);
        const reason = policy.refusalOfHost(url.hostname);
        if (reason !== null) throw new OutboundRefusedError(url.hostname, reason);
        const method = (init.method ?? 'GET').toUpperCase();
        // Request normalises every body type and adds its content type, as fetch would
        const prepared = new Request(url, { method, headers: init.headers ?? {}, ...(init.body != null ? { body: init.body } : {}) });
        const body = init.body != null ? Buffer.from(await prepared.arrayBuffer()) : undefined;
        const headers: Record<string, string> = Object.fromEntries(prepared.headers);
        if (body !== undefined) headers['content-length'] = String(body.length);
        init.signal?.throwIfAborted();
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        return new Promise<Response>((resolve, reject) => {
            const outgoing = send(url, { method, headers, lookup, ...(init.signal ? { signal: init.signal } : {}) }, (message) => {
                try {
                    resolve(responseOf(message, method));
                } catch (error) {
                    reject(error as Error);
                }
            });
            // an abort rejects with the signal's reason (a TimeoutError from AbortSignal.timeout), as fetch does
            outgoing.on('error', (error) => reject(init.signal?.aborted ? init.signal.reason as Error : error));
            outgoing.end(body);
        });
    };
}
