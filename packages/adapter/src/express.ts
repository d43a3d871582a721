import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { requestUrl, type DpopBindingOptions } from './dpop.js';
import { checkPermission, deniedError, denial, isDeniedError, type DenialListener, type PermissionRequirement } from './respond.js';
import type { RealmgateAuth, Verifier } from './verifier.js';

/* Express and Connect: plain (req, res, next) middleware over node:http, no framework import. */

declare global {
    // Express's Request extends the global Express.Request (@types/express-serve-static-core): declaration
    // merging there types `req.realmgate` on every Express request without importing Express here
    // eslint-disable-next-line @typescript-eslint/no-namespace
    namespace Express {
        interface Request {
            /** who the request acts as, once realmgateMiddleware has run on its path */
            realmgate?: RealmgateAuth;
        }
    }
}

export type RealmgateRequest = IncomingMessage & { realmgate?: RealmgateAuth };
export type NextFunction = (error?: unknown) => void;
export type Middleware = (request: RealmgateRequest, response: ServerResponse, next: NextFunction) => void;

export interface MiddlewareOptions extends DpopBindingOptions {
    /** hears every denial (401, 403, 503) before it goes to `next(err)`; `error.cause` is what failed */
    onError?: DenialListener<RealmgateRequest>;
}

/** The listener of the middleware that authenticated a request, for the checks after it. */
const LISTENER = Symbol('realmgate.onError');
type Listened = RealmgateRequest & { [LISTENER]?: DenialListener<RealmgateRequest> | undefined };

function refuse(request: Listened, next: NextFunction, error: unknown): void {
    const denied = deniedError(error);
    request[LISTENER]?.(denied, request);
    next(denied);
}

/** Writes the adapter's denial (the API.md §1 error body). */
export function sendDenied(response: ServerResponse, error: unknown): void {
    const answer = denial(isDeniedError(error) ? error.cause : error);
    response.writeHead(answer.statusCode, { ...answer.headers, 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(answer.body));
}

/**
 * Authenticates the request and sets `req.realmgate`; a refusal (401, 403, 503) goes to
 * `next(err)` — the application's error middleware, `realmgateErrorHandler()`, or Express's
 * default (the status and the challenge headers). A DPoP-bound token's proof is checked against
 * the request's method and URL (`options.publicUrl`, RFC 9449 §7); Express's `originalUrl` is the
 * path the client sent, before any mount point was cut.
 */
export function realmgateMiddleware(verifier: Verifier, options: MiddlewareOptions = {}): Middleware {
    return (request: Listened, _response, next) => {
        request[LISTENER] = options.onError;
        const path = (request as { originalUrl?: string }).originalUrl ?? request.url ?? '/';
        const secure = (request.socket as Partial<TLSSocket>).encrypted === true;
        verifier.verify(request.headers.authorization, {
            method: request.method ?? 'GET', url: requestUrl(options, { secure, host: request.headers.host, path }), proof: request.headers.dpop,
        }).then((auth) => {
            request.realmgate = auth;
            next();
        }, (error: unknown) => refuse(request, next, error));
    };
}

/** Requires a permission after realmgateMiddleware (see PermissionRequirement for `realmOf`); a refusal goes to `next(err)`. */
export function requirePermission<Request extends RealmgateRequest = RealmgateRequest>(
    name: string | readonly string[], requirement: PermissionRequirement<Request> = {},
): (request: Request, response: ServerResponse, next: NextFunction) => void {
    return (request, _response, next) => {
        const auth = request.realmgate;
        if (!auth) {
            refuse(request, next, new Error('realmgateMiddleware did not run before requirePermission'));
            return;
        }
        checkPermission(auth, request, name, requirement).then(() => next(), (error: unknown) => refuse(request, next, error));
    };
}

/**
 * The error middleware that answers the adapter's refusals with the API.md §1 error body (JSON)
 * and passes every other error on: `app.use(realmgateErrorHandler())` after the routes.
 */
export function realmgateErrorHandler(): (error: unknown, request: IncomingMessage, response: ServerResponse, next: NextFunction) => void {
    return (error, _request, response, next) => {
        if (!isDeniedError(error) || response.headersSent) {
            next(error);
            return;
        }
        sendDenied(response, error);
    };
}
