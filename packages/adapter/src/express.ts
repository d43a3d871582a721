import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { requestUrl, type DpopBindingOptions } from './dpop.js';
import { checkPermission, denial, type PermissionRequirement } from './respond.js';
import type { RealmgateAuth, Verifier } from './verifier.js';

/* Express and Connect: plain (req, res, next) middleware over node:http, no framework import. */

export type RealmgateRequest = IncomingMessage & { realmgate?: RealmgateAuth };
export type NextFunction = (error?: unknown) => void;
export type Middleware = (request: RealmgateRequest, response: ServerResponse, next: NextFunction) => void;

/** Writes the adapter's denial (the API.md §1 error body). */
export function sendDenied(response: ServerResponse, error: unknown): void {
    const answer = denial(error);
    response.writeHead(answer.statusCode, { ...answer.headers, 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(answer.body));
}

/**
 * Authenticates the request and sets `req.realmgate`; denies (401, 403, 503) otherwise. A
 * DPoP-bound token's proof is checked against the request's method and URL (`options.publicUrl`,
 * RFC 9449 §7); Express's `originalUrl` is the path the client sent, before any mount point was cut.
 */
export function realmgateMiddleware(verifier: Verifier, options: DpopBindingOptions = {}): Middleware {
    return (request, response, next) => {
        const path = (request as { originalUrl?: string }).originalUrl ?? request.url ?? '/';
        const secure = (request.socket as Partial<TLSSocket>).encrypted === true;
        verifier.verify(request.headers.authorization, {
            method: request.method ?? 'GET', url: requestUrl(options, { secure, host: request.headers.host, path }), proof: request.headers.dpop,
        }).then((auth) => {
            request.realmgate = auth;
            next();
        }, (error: unknown) => sendDenied(response, error));
    };
}

/** Requires a permission after realmgateMiddleware (see PermissionRequirement for `realmOf`). */
export function requirePermission<Request extends RealmgateRequest = RealmgateRequest>(name: string | readonly string[], requirement: PermissionRequirement<Request> = {}): Middleware {
    return (request, response, next) => {
        const auth = request.realmgate;
        if (!auth) {
            sendDenied(response, new Error('realmgateMiddleware did not run before requirePermission'));
            return;
        }
        checkPermission(auth, request as Request, name, requirement).then(() => next(), (error: unknown) => sendDenied(response, error));
    };
}
