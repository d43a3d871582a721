import { BuiltInPolicyType } from '@realmgate/access';
import { isRealmgateError, RealmgateError } from '@realmgate/client';
import { DPOP_SIGNING_ALGORITHMS, ErrorCode } from '@realmgate/core';
import type { RealmgateAuth } from './verifier.js';

/** A denial as the resource server answers it: the API.md §1 error body and its headers. */
export interface Denial {
    statusCode: number;
    headers: Record<string, string>;
    body: { statusCode: number; code: string; message: string };
}

/**
 * Any error on the authorization path denies (fail closed). A 401 carries the RFC 6750 §3
 * challenge (RFC 9449 §7.1's DPoP one for a refused proof); an unexpected error is masked.
 */
export function denial(error: unknown): Denial {
    if (!isRealmgateError(error)) {
        return { statusCode: 503, headers: {}, body: { statusCode: 503, code: ErrorCode.INTERNAL_ERROR, message: 'authorization unavailable' } };
    }
    const statusCode = error.statusCode >= 400 ? error.statusCode : 503;
    const headers: Record<string, string> = {};
    const description = error.message.replace(/["\\]/g, '');
    // RFC 9449 §7.1: a refused proof is challenged with the DPoP scheme and its algorithms
    if (statusCode === 401) {
        headers['www-authenticate'] = error.code === ErrorCode.INVALID_DPOP_PROOF ?
            `DPoP algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}", error="invalid_dpop_proof", error_description="${description}"` :
            `Bearer error="invalid_token", error_description="${description}"`;
    }
    if (statusCode === 403 && error.message.startsWith('the token lacks the scope')) headers['www-authenticate'] = 'Bearer error="insufficient_scope"';
    return { statusCode, headers, body: { statusCode, code: error.code, message: error.message } };
}

/**
 * A denial as an error for the framework's error handling (Fastify's error handler, Express's
 * `next(err)`): a RealmgateError with the answer's `statusCode`, its challenge `headers` (both
 * honoured by Fastify's default handler and Express's finalhandler) and the error it stands for
 * as its `cause` — a masked 503 keeps what really failed there.
 */
export type DeniedError = RealmgateError & { readonly headers: Record<string, string> };

const DENIED = Symbol.for('@realmgate/adapter/denied');

export function deniedError(error: unknown): DeniedError {
    if (isDeniedError(error)) return error;
    const answer = denial(error);
    const denied = new RealmgateError({ statusCode: answer.statusCode, code: answer.body.code as ErrorCode, message: answer.body.message, body: answer.body, cause: error });
    return Object.assign(denied, { headers: answer.headers, [DENIED]: true });
}

/** True for an error the adapter handed to the framework. */
export function isDeniedError(error: unknown): error is DeniedError {
    return isRealmgateError(error) && (error as unknown as Record<symbol, unknown>)[DENIED] === true;
}

/** Hears every denial before the framework answers it: `error.cause` is what failed (a 503's real reason). */
export type DenialListener<Request> = (error: DeniedError, request: Request) => void;

/** How a route names the permission it needs. */
export interface PermissionRequirement<Request> {
    /**
     * The realm of the resource the request acts on (its realm id, or null for a global row):
     * evaluated with REALM_MATCH (spec consumer rule 10). Without it the check is the pre-check
     * before the row is loaded (preEvaluate): decide on the row afterwards with `auth.evaluate`.
     */
    realmOf?: (request: Request) => string | null | Promise<string | null>;
    /** the permission definition's realm and client (not the resource's), for realm- or client-owned definitions */
    realmId?: string | null;
    clientId?: string | null;
    /** any one of several names instead of every one */
    oneOf?: boolean;
}

/** Runs a route's permission requirement for a request already authenticated. */
export async function checkPermission<Request>(auth: RealmgateAuth, request: Request, name: string | readonly string[], requirement: PermissionRequirement<Request>): Promise<void> {
    const context = {
        name,
        ...(requirement.realmId === undefined ? {} : { realmId: requirement.realmId }),
        ...(requirement.clientId === undefined ? {} : { clientId: requirement.clientId }),
    };
    if (requirement.realmOf) {
        const realm = await requirement.realmOf(request);
        const data = { [BuiltInPolicyType.REALM_MATCH]: realm };
        await (requirement.oneOf ? auth.evaluateOneOf({ ...context, data }) : auth.evaluate({ ...context, data }));
    } else {
        await (requirement.oneOf ? auth.preEvaluateOneOf(context) : auth.preEvaluate(context));
    }
}
