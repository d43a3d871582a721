/**
 * The types of a route call, read from the generated route table: what a call takes and what it
 * answers. Apart from the client so the resource namespaces can name them without importing the client.
 */
import type { Routes, ROUTE_METHODS } from './generated/routes.js';
import type { ListQuery } from './query.js';

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
/** Per-call settings of any call (a route method's input, a namespace method's options). */
export interface CallOptions {
    headers?: Record<string, string>;
    /** this call's credential instead of the client's (null: none) */
    auth?: Auth | null;
    signal?: AbortSignal;
    /** milliseconds each attempt may take (AbortSignal.timeout), instead of the client's `timeout` */
    timeout?: number;
}
export type RouteInput<K extends RouteKey> = ParamsInput<K> & BodyInput<K> & QueryInput<K> & CallOptions & {
    /** send the body as application/x-www-form-urlencoded (the OAuth 2.0 routes accept both) */
    form?: boolean;
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
    /**
     * After a 401 to `rejected` (the Authorization value that was refused): obtain a new credential
     * once (a refresh token's session does, RFC 6749 §6); resolves false when there is none to get.
     * Concurrent callers refused the same credential share one refresh.
     */
    refresh?(rejected: string): Promise<boolean>;
}
/** A credential: an Authorization header value, or a source of one (see the token helpers). */
export type Auth = string | AuthorizationSource;
