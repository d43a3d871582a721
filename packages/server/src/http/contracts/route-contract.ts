import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifySchema } from 'fastify';
import type { RouteAuth } from '../authentication-step.js';
import { errorResponses } from './error-body.js';

/** OpenAPI security schemes of the API (RFC 7617 Basic, RFC 6750 Bearer). */
export const SECURITY_SCHEMES = {
    basic: { type: 'http', scheme: 'basic', description: 'A user (name or id, password) or a client (id, secret).' },
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token issued by POST /token.' },
} as const;

const CREDENTIALS: Record<string, string[]>[] = [{ basic: [] }, { bearer: [] }];

/** The security requirement a route's authentication declaration implies. */
function securityOf(auth: RouteAuth, clientAuthentication: boolean): Record<string, string[]>[] {
    if (clientAuthentication) return [{}, { basic: [] }];
    if (auth === 'required') return CREDENTIALS;
    // `{}` is OpenAPI's "no credentials at all" alternative
    if (auth === 'optional') return [{}, ...CREDENTIALS];
    return [];
}

/** The errors any route may answer, by what it authenticates. */
function defaultErrors(auth: RouteAuth, clientAuthentication: boolean): number[] {
    if (auth === 'none' && !clientAuthentication) return [400, 404, 429, 500];
    return [400, 401, 403, 404, 429, 500];
}

export interface RouteContract {
    auth: RouteAuth;
    summary: string;
    tags: readonly string[];
    description?: string;
    params?: TSchema;
    querystring?: TSchema;
    body?: TSchema;
    /** media types the body may come in; default JSON */
    consumes?: readonly string[];
    /** the success answers, by status; the error answers are added */
    response: Record<number, TSchema>;
    /** error statuses beyond the defaults (409 on writes) */
    errors?: readonly number[];
    /**
     * an OAuth 2.0 protocol route (API.md §1): errors carry `error`/`error_description`, and the
     * client may authenticate with Basic or in the body (RFC 6749 §2.3.1)
     */
    oauth?: boolean;
    /** route config beyond `auth` (the limits' CHARGED_BY_ROUTE) */
    config?: Record<string, unknown>;
}

/**
 * A route's whole contract in one place: how it authenticates (`config.auth`, run by the
 * authentication step), its params, querystring, body, every response with its body, and the
 * security requirement that follows from the authentication. The options go straight into the
 * route declaration; @fastify/swagger builds the OpenAPI document from them at boot.
 */
/** The declared input schemas, kept with their TypeBox types so the type provider types the handler. */
type Declared<C, K extends string> = C extends Record<K, infer S> ? S : undefined;
export interface ContractOptions<C extends RouteContract> {
    config: FastifyContextConfig;
    schema: FastifySchema & { params: Declared<C, 'params'>; querystring: Declared<C, 'querystring'>; body: Declared<C, 'body'> };
}

export function contract<const C extends RouteContract>(route: C): ContractOptions<C> {
    const oauth = route.oauth === true;
    const statuses = [...new Set([...defaultErrors(route.auth, oauth), ...(route.errors ?? [])])].sort();
    const schema: FastifySchema & Record<string, unknown> = {
        summary: route.summary,
        tags: [...route.tags],
        ...(route.description ? { description: route.description } : {}),
        ...(route.params ? { params: route.params } : {}),
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.body ? { body: route.body } : {}),
        ...(route.consumes ? { consumes: [...route.consumes] } : {}),
        response: { ...route.response, ...errorResponses(statuses, oauth) },
        security: securityOf(route.auth, oauth),
    };
    return { config: { ...route.config, auth: route.auth }, schema: schema as ContractOptions<C>['schema'] };
}

/** A success answer without a body (RFC 7009 §2.2). */
export const EmptyAnswer = (description: string): TSchema => Type.Null({ description });

/** A bare protocol object (API.md §1: not enveloped) whose members the cited RFC defines. */
export const ProtocolObject = (description: string, properties: Record<string, TSchema> = {}): TSchema =>
    Type.Object(properties, { additionalProperties: true, description });
