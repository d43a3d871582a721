import { ErrorCode } from '@realmgate/core';
import { errorFromAnswer, RealmgateError } from './errors.js';
import { ROUTE_METHODS, type Routes } from './generated/routes.js';
import { buildQuery, type ListQuery } from './query.js';

export type RouteKey = keyof Routes;

type KnownKeys<T> = keyof { [P in keyof T as string extends P ? never : number extends P ? never : P]: T[P] };
type Item<R> = R extends { data: ReadonlyArray<infer I> } ? I : R extends { data: infer I } ? I : never;
/** The filterable fields of a list route (its declared `filter[…]` parameters). */
export type FilterField<K extends RouteKey> = { [Q in keyof Routes[K]['query']]: Q extends `filter[${infer F}]` ? F : never }[keyof Routes[K]['query']];
/** The field names of a route's record. */
export type FieldName<K extends RouteKey> = Extract<KnownKeys<Item<Routes[K]['response']>>, string>;

/** The query of a route: the typed list query, plus any other declared or extra parameter. */
export type RouteQuery<K extends RouteKey> = ListQuery<FilterField<K>, FieldName<K>> & { [parameter: string]: unknown };

type ParamsInput<K extends RouteKey> = keyof Routes[K]['params'] extends never ? { params?: Record<never, never> } : { params: Routes[K]['params'] };
type BodyInput<K extends RouteKey> = [Routes[K]['body']] extends [never] ? { body?: never } :
    Routes[K]['bodyRequired'] extends true ? { body: Routes[K]['body'] } : { body?: Routes[K]['body'] };

/** What a call takes: path parameters, query, body, and per-call overrides. */
type HasRequired<T> = Record<never, never> extends T ? false : true;
type QueryInput<K extends RouteKey> = HasRequired<Routes[K]['query']> extends true ? { query: RouteQuery<K> } : { query?: RouteQuery<K> };
export type RouteInput<K extends RouteKey> = ParamsInput<K> & BodyInput<K> & QueryInput<K> & {
    headers?: Record<string, string>;
    /** this call's credential instead of the client's (null: none) */
    auth?: Auth | null;
    /** send the body as application/x-www-form-urlencoded (the OAuth 2.0 routes accept both) */
    form?: boolean;
    signal?: AbortSignal;
};
export type RouteResponse<K extends RouteKey> = Routes[K]['response'];

type NeedsInput<K extends RouteKey> = keyof Routes[K]['params'] extends never ?
    Routes[K]['bodyRequired'] extends true ? true : HasRequired<Routes[K]['query']> : true;
export type RouteMethod<K extends RouteKey> = NeedsInput<K> extends true ?
    (input: RouteInput<K>) => Promise<RouteResponse<K>> :
    (input?: RouteInput<K>) => Promise<RouteResponse<K>>;
export type RouteMethods = { [N in keyof typeof ROUTE_METHODS]: RouteMethod<typeof ROUTE_METHODS[N]> };

/** Something that yields an Authorization header value per request (a token helper). */
export interface AuthorizationSource {
    authorization(): Promise<string>;
}
/** A credential: an Authorization header value, or a source of one (see the token helpers). */
export type Auth = string | AuthorizationSource;

export interface RetryPolicy {
    /** attempts after the first; default 2 */
    retries?: number;
    /** a Retry-After longer than this (seconds) is not waited for; default 60 */
    maxDelaySeconds?: number;
    /** the wait, replaceable for tests and custom schedulers */
    sleep?: (milliseconds: number) => Promise<void>;
}

export interface ClientOptions {
    /** the server's public URL, e.g. http://localhost:3000 */
    baseUrl: string;
    auth?: Auth;
    /** retry a 429 after its Retry-After (RFC 6585 §4); false turns retrying off */
    retry?: RetryPolicy | false;
    /** a fetch implementation; the global one by default */
    fetch?: typeof fetch;
    headers?: Record<string, string>;
}

export interface RealmgateClient extends RouteMethods {
    readonly baseUrl: string;
    /** any route by its key, e.g. `request('GET /users/{id}', { params: { id } })` */
    request<K extends RouteKey>(route: K, input?: RouteInput<K>): Promise<RouteResponse<K>>;
    /** the same client with another credential */
    withAuth(auth: Auth | undefined): RealmgateClient;
}

/** Basic credentials (RFC 7617) for a user or client name (or id) and its password or secret. */
export function basicAuth(name: string, secret: string): string {
    const bytes = new TextEncoder().encode(`${name}:${secret}`);
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return `Basic ${btoa(binary)}`;
}

const wait = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

function pathOf(template: string, params: Record<string, unknown> | undefined): string {
    return template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
        const value = params?.[name];
        if (value === undefined || value === null) throw new TypeError(`path parameter ${name} is missing`);
        return encodeURIComponent(String(value));
    });
}

async function readBody(response: Response): Promise<unknown> {
    const text = await response.text();
    if (text === '') return null;
    return (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}

function encodeForm(body: Record<string, unknown>): URLSearchParams {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body)) if (value !== undefined && value !== null) form.append(name, String(value));
    return form;
}

/** A typed client of every route of the API (see the generated route table). */
export function createClient(options: ClientOptions): RealmgateClient {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    const doFetch = options.fetch ?? ((input: string | URL, init?: RequestInit) => fetch(input, init));
    const retry = options.retry === false ? { retries: 0, maxDelaySeconds: 0, sleep: wait } :
        { retries: options.retry?.retries ?? 2, maxDelaySeconds: options.retry?.maxDelaySeconds ?? 60, sleep: options.retry?.sleep ?? wait };

    async function request<K extends RouteKey>(route: K, input: RouteInput<K> = {} as RouteInput<K>): Promise<RouteResponse<K>> {
        const space = route.indexOf(' ');
        const method = route.slice(0, space);
        const call = input as RouteInput<K> & { params?: Record<string, unknown>; body?: unknown };
        const search = buildQuery(call.query).toString();
        const url = `${baseUrl}${pathOf(route.slice(space + 1), call.params)}${search ? `?${search}` : ''}`;
        const auth = call.auth === undefined ? options.auth : call.auth;
        for (let attempt = 0; ; attempt += 1) {
            const headers: Record<string, string> = { accept: 'application/json', ...options.headers, ...call.headers };
            if (auth) headers.authorization = typeof auth === 'string' ? auth : await auth.authorization();
            let body: string | URLSearchParams | undefined;
            if (call.body !== undefined) {
                if (call.form) body = encodeForm(call.body as Record<string, unknown>);
                else {
                    body = JSON.stringify(call.body);
                    headers['content-type'] = 'application/json';
                }
            }
            let response: Response;
            try {
                response = await doFetch(url, { method, headers, ...(body === undefined ? {} : { body }), ...(call.signal ? { signal: call.signal } : {}) });
            } catch (cause) {
                throw new RealmgateError({ statusCode: 0, code: ErrorCode.INTERNAL_ERROR, message: `request to ${url} failed: ${(cause as Error).message}` });
            }
            const parsed = await readBody(response);
            if (response.ok) return parsed as RouteResponse<K>;
            const error = errorFromAnswer(response.status, parsed, response.headers.get('retry-after'));
            // RFC 6585 §4: a 429 may be retried after Retry-After; a longer wait than allowed is the caller's call
            const delay = error.retryAfter ?? 1;
            if (response.status !== 429 || attempt >= retry.retries || delay > retry.maxDelaySeconds) throw error;
            await retry.sleep(delay * 1000);
        }
    }

    const client = {
        baseUrl,
        request,
        withAuth: (auth: Auth | undefined) => createClient({ ...options, ...(auth === undefined ? { auth: undefined } : { auth }) }),
    } as Record<string, unknown>;
    for (const [name, route] of Object.entries(ROUTE_METHODS)) {
        client[name] = (input?: RouteInput<RouteKey>) => request(route, input);
    }
    return client as unknown as RealmgateClient;
}
