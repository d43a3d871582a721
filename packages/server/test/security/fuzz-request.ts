import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { collectionOf, type Operation } from './openapi-operations.js';
import { pathValue, payloadFor, queryFor, type Payload } from './hostile-input.js';

/* One generated request for an operation: its URL (path parameters and query) and its payload. */

export interface FuzzRequest {
    url: string;
    payload: Payload;
}

export type IdsOf = (collection: string) => readonly string[];

export function requestFor(operation: Operation, idsOf: IdsOf, allIds: readonly string[]): fc.Arbitrary<FuzzRequest> {
    const collection = collectionOf(operation.path);
    const params = Object.fromEntries(operation.pathParams.map((name) => {
        // realmId and realm take a realm; id and kid take a row of the path's collection
        const ids = name === 'realmId' || name === 'realm' ? idsOf('realms') : name === 'kid' ? idsOf('keys') : idsOf(collection);
        return [name, pathValue(ids.length ? ids : allIds)];
    }));
    const withBody = operation.body !== undefined || operation.mediaTypes.length > 0;
    const noBody = fc.constant<Payload>({ label: 'no body' });
    return fc.record({
        params: fc.record(params),
        query: queryFor(operation.queryParams),
        // a body is sent to routes that take none now and then, too
        payload: withBody ? payloadFor(operation.body, operation.mediaTypes, allIds) : fc.oneof({ weight: 5, arbitrary: noBody }, { weight: 1, arbitrary: payloadFor(undefined, [], allIds) }),
    }).map(({ params: values, query, payload }) => {
        const path = operation.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_match, name: string) => values[name] as string);
        return { url: query ? `${path}?${query}` : path, payload };
    });
}

export function injectOptions(operation: Operation, request: FuzzRequest, authorization: string | null): InjectOptions & { as: string | null } {
    const headers: Record<string, string> = {};
    if (request.payload.contentType) headers['content-type'] = request.payload.contentType;
    return {
        method: operation.method,
        url: request.url,
        as: authorization,
        headers,
        ...(request.payload.body === undefined ? {} : { payload: request.payload.body }),
    };
}

/*
 * Internal detail an error body must never carry (OWASP ASVS 5.0 §16.5.1: generic messages, no
 * stack traces, queries or paths): driver error codes and messages, SQL text, source locations.
 */
const INTERNAL_DETAIL: [string, RegExp][] = [
    ['a stack frame', /\n\s+at [^\n]+:\d+:\d+/],
    ['a stack member', /"stack"\s*:/],
    ['an SQLite error', /SQLITE/],
    ['an SQL syntax error', /syntax error/i],
    ['a PostgreSQL relation', /relation "/],
    ['a MySQL error code', /\bER_[A-Z_]+/],
    ['a source path', /\/src\/|\.ts:\d|node_modules/],
    ['SQL text', /\b(select|insert into|update|delete from)\b[^"]{0,80}\b(from|where|values|set)\b\s+[`"]?auth_/i],
];

export function internalDetail(body: string): string | undefined {
    return INTERNAL_DETAIL.find(([, pattern]) => pattern.test(body))?.[0];
}
