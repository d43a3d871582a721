import { ErrorCode } from '@realmgate/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type Issue } from '../errors/app-error.js';

/** The API.md §1 error body. */
export interface ErrorBody {
    statusCode: number;
    code: ErrorCode;
    message: string;
    issues?: Issue[];
    retryAfter?: number;
}

interface AjvError {
    instancePath?: string;
    keyword?: string;
    message?: string;
    params?: Record<string, unknown>;
}

/** Fastify/ajv validation errors as API.md §1 issues: one per finding, with the member's path. */
function issuesOf(validation: AjvError[], context: string | undefined): Issue[] {
    return validation.map((error) => {
        const path = (error.instancePath ?? '').split('/').filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
        const params = error.params ?? {};
        if (error.keyword === 'required' && typeof params.missingProperty === 'string') path.push(params.missingProperty);
        if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
            path.push(params.additionalProperty);
            return { path, code: 'unknown_member', message: 'is not a known member' };
        }
        return {
            path: context && context !== 'body' ? [context, ...path] : path,
            code: error.keyword === 'required' ? 'required' : `invalid_${error.keyword ?? 'value'}`,
            message: error.message ?? 'is invalid',
        };
    });
}

type RenderableError = FastifyError & { validation?: AjvError[]; validationContext?: string };

/** The API.md §1 status and body of an error (headers it needs are set on the reply). */
export function renderError(error: RenderableError, request: FastifyRequest, reply: FastifyReply): { status: number; body: ErrorBody } {
    if (error instanceof AppError) {
        // the internal detail goes to the log only; the body carries the client-safe message
        if (error.detail !== undefined) request.log.info({ code: error.code, detail: error.detail }, error.message);
        if (error.retryAfter !== undefined) reply.header('Retry-After', String(error.retryAfter));
        if (error.headers !== undefined) reply.headers(error.headers);
        // RFC 7235 §3.1: a 401 names the scheme the client should use. A page's script (it sends
        // X-Requested-With, as the consoles do) is challenged with Bearer: a Basic challenge makes
        // the browser open its credentials dialog over the page (and blocks a headless one)
        if (error.statusCode === 401 && !reply.hasHeader('WWW-Authenticate')) {
            const script = request.headers['x-requested-with'] !== undefined;
            reply.header('WWW-Authenticate', error.challenge ?? (script ? 'Bearer realm="realmgate"' : 'Basic realm="realmgate", charset="UTF-8"'));
        }
        return {
            status: error.statusCode,
            body: {
                statusCode: error.statusCode,
                code: error.code,
                message: error.message,
                ...(error.issues ? { issues: error.issues } : {}),
                ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
            },
        };
    }
    if (error.validation) {
        const issues = issuesOf(error.validation, error.validationContext);
        return { status: 400, body: { statusCode: 400, code: ErrorCode.BAD_REQUEST, message: 'Validation failed.', issues } };
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 413 || status === 429) {
        // a parser's own cap (Fastify's FST_ERR_CTP_BODY_TOO_LARGE): RFC 9110 §15.5.14 names the status, the code follows it
        const code = status === 429 ? ErrorCode.TOO_MANY_REQUESTS : ErrorCode.PAYLOAD_TOO_LARGE;
        return { status, body: { statusCode: status, code, message: error.message } };
    }
    if (status >= 400 && status < 500) {
        // framework-level body errors (malformed JSON, a body that is not JSON or a form): the
        // client sent bad input, which API.md §1 answers 400 with issues
        const issues = [{ path: ['body'], code: status === 415 ? 'unsupported_media_type' : 'malformed_body', message: error.message }];
        return { status: 400, body: { statusCode: 400, code: ErrorCode.BAD_REQUEST, message: error.message, issues } };
    }
    request.log.error({ err: error }, 'request failed');
    return { status: 500, body: { statusCode: 500, code: ErrorCode.INTERNAL_ERROR, message: 'An internal error occurred.' } };
}

/** Every error leaves as the API.md §1 body; nothing a client sent becomes a 500. */
export function registerErrorHandler(app: FastifyInstance): void {
    app.setErrorHandler((error: RenderableError, request, reply) => {
        const { status, body } = renderError(error, request, reply);
        return reply.status(status).send(body);
    });
    app.setNotFoundHandler((request, reply) => reply.status(404).send({
        statusCode: 404,
        code: ErrorCode.ENTITY_NOT_FOUND,
        message: `Route ${request.method} ${request.url.split('?')[0]} does not exist.`,
    }));
}
