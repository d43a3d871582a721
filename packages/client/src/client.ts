import { isRealmgateError, RealmgateError } from './errors.js';
import { ROUTE_METHODS } from './generated/routes.js';
import { buildQuery } from './query.js';
import { resourceNamespaces, type ResourceNamespaces } from './resources.js';
import type { Auth, RouteInput, RouteKey, RouteMethods, RouteResponse } from './route-types.js';
import { createSender, type Outgoing, type RetryPolicy } from './transport.js';

export interface ClientOptions {
    /** the server's public URL, e.g. http://localhost:3000 */
    baseUrl: string;
    auth?: Auth;
    /**
     * retries: a 429 after its Retry-After (RFC 6585 §4) on any method; a network failure or a 5xx
     * on GET, HEAD, PUT, DELETE and OPTIONS only, with exponential backoff and jitter or the
     * answer's Retry-After; false turns retrying off
     */
    retry?: RetryPolicy | false;
    /** milliseconds each attempt may take (AbortSignal.timeout), combined with a call's `signal`; default none */
    timeout?: number;
    /** a fetch implementation; the global one by default */
    fetch?: typeof fetch;
    headers?: Record<string, string>;
}

export interface RealmgateClient extends RouteMethods, ResourceNamespaces {
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

function pathOf(template: string, params: Record<string, unknown> | undefined): string {
    return template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
        const value = params?.[name];
        if (value === undefined || value === null) throw new TypeError(`path parameter ${name} is missing`);
        return encodeURIComponent(String(value));
    });
}

function encodeForm(body: Record<string, unknown>): URLSearchParams {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body)) if (value !== undefined && value !== null) form.append(name, String(value));
    return form;
}

/** A typed client of every route of the API (see the generated route table). */
export function createClient(options: ClientOptions): RealmgateClient {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    const send = createSender(options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => fetch(input, init)), options.retry);

    async function request<K extends RouteKey>(route: K, input: RouteInput<K> = {} as RouteInput<K>): Promise<RouteResponse<K>> {
        const space = route.indexOf(' ');
        const call = input as RouteInput<K> & { params?: Record<string, unknown>; body?: unknown };
        const search = buildQuery(call.query).toString();
        const settings = {
            method: route.slice(0, space), url: `${baseUrl}${pathOf(route.slice(space + 1), call.params)}${search ? `?${search}` : ''}`,
            signal: call.signal, timeout: call.timeout ?? options.timeout,
        };
        const auth = call.auth === undefined ? options.auth : call.auth;
        let sent: string | undefined;
        const prepare = async (): Promise<Outgoing> => {
            const headers: Record<string, string> = { accept: 'application/json', ...options.headers, ...call.headers };
            sent = !auth ? undefined : typeof auth === 'string' ? auth : await auth.authorization();
            if (sent) headers.authorization = sent;
            if (call.body === undefined) return { headers };
            if (call.form) return { headers, body: encodeForm(call.body as Record<string, unknown>) };
            return { headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(call.body) };
        };
        try {
            return await send(settings, prepare) as RouteResponse<K>;
        } catch (error) {
            // one refresh and one more try after a 401, when the credential can be renewed (RFC 6750 §3.1
            // invalid_token: the token expired or was revoked)
            if (!isRealmgateError(error) || error.statusCode !== 401 || typeof auth !== 'object' || !auth?.refresh || sent === undefined) throw error;
            let renewed: boolean;
            try {
                renewed = await auth.refresh(sent);
            } catch (cause) {
                throw new RealmgateError({
                    statusCode: error.statusCode, code: error.code, message: error.message, issues: error.issues, body: error.body,
                    ...(error.error === undefined ? {} : { error: error.error }), cause,
                });
            }
            if (!renewed) throw error;
            return await send(settings, prepare) as RouteResponse<K>;
        }
    }

    const client = {
        baseUrl,
        request,
        withAuth: (auth: Auth | undefined) => createClient({ ...options, ...(auth === undefined ? { auth: undefined } : { auth }) }),
        ...resourceNamespaces(request as unknown as (route: RouteKey, input: Record<string, unknown>) => Promise<unknown>),
    } as Record<string, unknown>;
    for (const [name, route] of Object.entries(ROUTE_METHODS)) {
        client[name] = (input?: RouteInput<RouteKey>) => request(route, input);
    }
    return client as unknown as RealmgateClient;
}
