import type { CallOptions, RouteInput, RouteKey, RouteQuery, RouteResponse } from './route-types.js';
import { COLLECTIONS, ROUTE_METHODS } from './generated/routes.js';

/*
 * The resource namespaces: `client.users.list()`, `.get(id)`, `.create(body)`, `.update(id, body)`,
 * `.delete(id)` and `.iterate(query)` for every administered collection of the route table, each
 * method the collection's own route (a read-only collection has no writes).
 */

type Collections = typeof COLLECTIONS;
type Has<K extends string> = K extends RouteKey ? true : false;
type Row<P extends string> = `GET ${P}` extends RouteKey ? RouteResponse<`GET ${P}`> extends { data: ReadonlyArray<infer I> } ? I : never : never;
type BodyOf<K extends string> = K extends RouteKey ? RouteInput<K> extends { body?: infer B } ? B : never : never;
type Answer<K extends string> = K extends RouteKey ? Promise<RouteResponse<K>> : never;
type ReadQuery<P extends string> = `GET ${P}/{id}` extends RouteKey ? RouteQuery<`GET ${P}/{id}`> : never;
type ListQuery<P extends string> = RouteQuery<`GET ${P}` & RouteKey>;

/**
 * A row as a query with `fields` answers it (API.md §2): names replace the projection, so only
 * those members are there; `+name` adds a withheld member to the default ones (when the caller may
 * read it, hence optional). Without `fields`, the default read.
 */
export type Projected<R, Q> = Q extends { fields: ReadonlyArray<infer F> } ? Narrowed<R, Exclude<F, `+${string}`>, F extends `+${infer N}` ? N : never> : R;
type Narrowed<R, Named, Added> = [Named] extends [never] ? R & Partial<Pick<R, Extract<Added, keyof R>>> :
    [Added] extends [never] ? Pick<R, Extract<Named, keyof R>> : Pick<R, Extract<Named, keyof R>> & Partial<Pick<R, Extract<Added, keyof R>>>;
type Envelope<K extends string, Q> = K extends RouteKey ? RouteResponse<K> extends { data: ReadonlyArray<infer I>; meta: infer M } ? { data: Projected<I, Q>[]; meta: M } :
    RouteResponse<K> extends { data: infer I; meta: infer M } ? { data: Projected<I, Q>; meta: M } : RouteResponse<K> : never;

export type ResourceNamespace<P extends string> = {
    /** one page of the collection (API.md §2 list query); a `fields` projection narrows the rows' type */
    list<const Q extends ListQuery<P> = ListQuery<P>>(query?: Q, options?: CallOptions): Promise<Envelope<`GET ${P}`, Q>>;
    /** one row by id (or name, for named entities) */
    get<const Q extends ReadQuery<P> = ReadQuery<P>>(id: string, options?: CallOptions & { query?: Q }): Promise<Envelope<`GET ${P}/{id}`, Q>>;
    /**
     * every row the query matches, page after page (`page.limit` rows a request, default 100, the
     * API's maximum); the total of each page decides when to stop
     */
    iterate<const Q extends ListQuery<P> = ListQuery<P>>(query?: Q, options?: CallOptions): AsyncIterable<Projected<Row<P>, Q>>;
} & (Has<`POST ${P}`> extends true ? {
    create(body: BodyOf<`POST ${P}`>, options?: CallOptions): Answer<`POST ${P}`>;
} : unknown) & (Has<`POST ${P}/{id}`> extends true ? {
    update(id: string, body: BodyOf<`POST ${P}/{id}`>, options?: CallOptions): Answer<`POST ${P}/{id}`>;
} : unknown) & (Has<`DELETE ${P}/{id}`> extends true ? {
    delete(id: string, options?: CallOptions): Answer<`DELETE ${P}/{id}`>;
} : unknown);

export type ResourceNamespaces = { readonly [N in keyof Collections]: ResourceNamespace<Collections[N]> };

/** The API's largest page (API.md §2). */
const MAX_PAGE = 100;

type Call = (route: RouteKey, input: Record<string, unknown>) => Promise<unknown>;
interface Page {
    data: unknown[];
    meta: { total: number };
}

/** The namespaces of a client, on its `request`. */
export function resourceNamespaces(call: Call): ResourceNamespaces {
    const routes = new Set<string>(Object.values(ROUTE_METHODS));
    const route = (key: string) => {
        if (!routes.has(key)) throw new TypeError(`the API has no route ${key}`);
        return key as RouteKey;
    };
    const namespaces: Record<string, Record<string, unknown>> = {};
    for (const [name, path] of Object.entries(COLLECTIONS)) {
        const namespace: Record<string, unknown> = {
            list: (query?: object, options: CallOptions = {}) => call(route(`GET ${path}`), { ...options, query }),
            get: (id: string, options: CallOptions & { query?: object } = {}) => call(route(`GET ${path}/{id}`), { ...options, params: { id } }),
            async *iterate(query: { page?: { limit?: number; offset?: number } } = {}, options: CallOptions = {}) {
                const limit = query.page?.limit ?? MAX_PAGE;
                let offset = query.page?.offset ?? 0;
                for (;;) {
                    const page = await call(route(`GET ${path}`), { ...options, query: { ...query, page: { limit, offset } } }) as Page;
                    yield* page.data;
                    offset += page.data.length;
                    // an empty page ends it too: rows deleted meanwhile must not make it ask forever
                    if (page.data.length === 0 || offset >= page.meta.total) return;
                }
            },
        };
        if (routes.has(`POST ${path}`)) namespace.create = (body: unknown, options: CallOptions = {}) => call(route(`POST ${path}`), { ...options, body });
        if (routes.has(`POST ${path}/{id}`)) {
            namespace.update = (id: string, body: unknown, options: CallOptions = {}) => call(route(`POST ${path}/{id}`), { ...options, params: { id }, body });
        }
        if (routes.has(`DELETE ${path}/{id}`)) namespace.delete = (id: string, options: CallOptions = {}) => call(route(`DELETE ${path}/{id}`), { ...options, params: { id } });
        namespaces[name] = namespace;
    }
    return namespaces as unknown as ResourceNamespaces;
}
