import { ErrorCode } from '@realmgate/core';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

/** `code`: a value of the `ErrorCode` enumeration (API.md §1), so the document lists them all. */
const Code = Type.Unsafe<ErrorCode>({ type: 'string', enum: Object.values(ErrorCode) });

const Issue = Type.Object({
    path: Type.Array(Type.Union([Type.String(), Type.Integer()])),
    code: Type.String(),
    message: Type.String(),
}, { additionalProperties: false });

const errorMembers = {
    statusCode: Type.Integer({ minimum: 400, maximum: 599 }),
    code: Code,
    message: Type.String(),
    issues: Type.Optional(Type.Array(Issue)),
    /** seconds, beside the `Retry-After` header of a 429 */
    retryAfter: Type.Optional(Type.Integer({ minimum: 0 })),
};

/** The API.md §1 error body every route answers with. */
const ErrorBody = Type.Object(errorMembers, { additionalProperties: false, $id: 'Error', title: 'Error' });

/**
 * The error body of the OAuth 2.0 protocol routes: the API.md §1 members plus RFC 6749 §5.2
 * `error` and `error_description` (RFC 7009 §2.2.1 and RFC 7662 reuse them).
 */
const OAuthErrorBody = Type.Object({
    ...errorMembers,
    error: Type.String(),
    error_description: Type.String(),
    /** the multi-factor ticket of an `mfa_required` answer at the password grant */
    mfa_token: Type.Optional(Type.String()),
}, { additionalProperties: false, $id: 'OAuthError', title: 'OAuthError' });

const DESCRIPTIONS: Record<number, string> = {
    400: 'Invalid input (API.md §1: validation, malformed body or query); `issues` name the members.',
    401: 'Missing or invalid credentials (with `WWW-Authenticate`).',
    403: 'The caller lacks the permission.',
    404: 'No such entity, realm or route.',
    409: 'A unique value or a key in use conflicts.',
    415: 'A content coding or media type that is not accepted.',
    429: 'The request budget is spent or the login is throttled (with `Retry-After`).',
    500: 'An internal error; the message is masked.',
};

/**
 * The error bodies as shared schemas: the document names each once (`components/schemas`) and
 * every operation refers to it, instead of repeating it in each of its error answers.
 */
export function registerErrorSchemas(app: FastifyInstance): void {
    app.addSchema(ErrorBody);
    app.addSchema(OAuthErrorBody);
}

/** The error responses of an operation, each a reference to an error body and what it means. */
export function errorResponses(statuses: readonly number[], oauth = false): Record<number, TSchema> {
    const body = oauth ? 'OAuthError' : 'Error';
    return Object.fromEntries(statuses.map((status) => [status, Type.Unsafe({ $ref: `${body}#`, description: DESCRIPTIONS[status] ?? 'An error.' })]));
}
