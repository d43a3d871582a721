import { ErrorCode } from '@realmgate/core';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, issue, validationFailed, type Issue } from '../../errors/app-error.js';
import { bodySchemas } from '../resource/body-schema.js';
import type { EntityRecord } from '../resource/records.js';
import { clientSpec } from '../clients/definition.js';

/**
 * The client metadata of RFC 7591 §2 (and OpenID Connect Registration §2) a registration may carry,
 * each onto the client field the admin API validates (API.md §3, §8). `scope`, `audience`,
 * `firstParty`, access policies and folders are not registrable: they are the administrator's.
 */
const MEMBERS = {
    client_name: 'displayName',
    grant_types: 'grantTypes',
    token_endpoint_auth_method: 'tokenEndpointAuthMethod',
    jwks: 'jwks',
    jwks_uri: 'jwksUri',
    backchannel_logout_uri: 'backchannelLogoutUri',
    id_token_signed_response_alg: 'idTokenSignedResponseAlg',
    require_pushed_authorization_requests: 'requirePushedAuthorizationRequests',
    require_signed_request_object: 'requireSignedRequestObject',
} as const;
/** URI lists: arrays in the metadata, one space-separated field on the client. */
const URI_LISTS = { redirect_uris: 'redirectUri', post_logout_redirect_uris: 'postLogoutRedirectUri' } as const;
const METADATA_OF: Readonly<Record<string, string>> = Object.fromEntries(
    [...Object.entries(MEMBERS), ...Object.entries(URI_LISTS)].map(([metadata, field]) => [field, metadata]),
);

/** RFC 7591 §2: the defaults of an omitted grant_types and token_endpoint_auth_method. */
const DEFAULT_GRANT_TYPES = ['authorization_code'];
const DEFAULT_AUTH_METHOD = 'client_secret_basic';
/** The methods that authenticate with a secret the server issues (RFC 7591 §3.2.1 `client_secret`). */
export const SECRET_METHODS: ReadonlySet<string> = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
/** OIDC Core §3.1: only the authorization code flow is served (discovery's response_types_supported). */
const RESPONSE_TYPES = ['code'];

/** the admin API's create body of a client, its name aside (the service names a registered client) */
const CLIENT_BODY = Type.Partial(bodySchemas(clientSpec, clientSpec.fields).create);

/** The client fields a registration writes, and the method it asked for. */
export interface RegisteredFields {
    body: Record<string, unknown>;
    method: string;
}

/** RFC 7591 §3.2.2: an issue about a URI list is invalid_redirect_uri, any other invalid_client_metadata. */
export function metadataError(error: unknown): unknown {
    if (!(error instanceof AppError) || error.code !== ErrorCode.BAD_REQUEST) return error;
    const issues = (error.issues ?? []).map((found) => ({ ...found, path: renamePath(found.path) }));
    const redirect = issues.some((found) => found.path[0] === 'redirect_uris' || found.path[0] === 'post_logout_redirect_uris');
    const first = issues[0];
    const message = first ? `${first.path.join('.')}: ${first.message}` : error.message;
    return new AppError(redirect ? ErrorCode.INVALID_REDIRECT_URI : ErrorCode.INVALID_CLIENT_METADATA, message, { issues });
}

function renamePath(path: (string | number)[]): (string | number)[] {
    const [head, ...rest] = path;
    return typeof head === 'string' && METADATA_OF[head] !== undefined ? [METADATA_OF[head]!, ...rest] : path;
}

/** A URI list member: an array of URIs, each without white space (the client field separates them by spaces). */
function uriList(name: string, value: unknown): { issues: Issue[]; joined: string | null } {
    if (value === undefined || value === null) return { issues: [], joined: null };
    if (!Array.isArray(value) || value.length === 0) return { issues: [issue([name], 'invalid_uri', 'must be a non-empty array of URIs')], joined: null };
    const issues = value.flatMap((uri, index) => (typeof uri !== 'string' || uri.length === 0 || /\s/.test(uri) ?
        [issue([name, index], 'invalid_uri', 'must be a URI without white space')] : []));
    return { issues, joined: issues.length === 0 ? value.join(' ') : null };
}

/** RFC 7591 §2.1: response_types are `code` only, and `code` goes with the authorization_code grant. */
function responseTypeIssues(value: unknown, grantTypes: unknown): Issue[] {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((type) => typeof type !== 'string' || !RESPONSE_TYPES.includes(type))) {
        return [issue(['response_types'], 'unsupported_response_type', `only ${RESPONSE_TYPES.join(', ')} is supported`)];
    }
    if (value.length > 0 && !(Array.isArray(grantTypes) && grantTypes.includes('authorization_code'))) {
        return [issue(['response_types'], 'inconsistent', 'code needs the authorization_code grant (RFC 7591 §2.1)')];
    }
    return [];
}

/**
 * The client body of a registration's metadata (RFC 7591 §2), every member but the two URI lists
 * checked against the clients' create schema, as `POST /clients` checks its body; the field rules
 * (URI schemes, grants, keys) run in the clients' service. Members it does not know are ignored
 * (RFC 7591 §2: "MUST ignore"). Absent members are null, so an update replaces (RFC 7592 §2.2).
 */
export function registeredFields(metadata: Record<string, unknown>): RegisteredFields {
    const grantTypes = metadata.grant_types ?? DEFAULT_GRANT_TYPES;
    const method = metadata.token_endpoint_auth_method ?? DEFAULT_AUTH_METHOD;
    const body: Record<string, unknown> = {};
    for (const [member, field] of Object.entries(MEMBERS)) body[field] = metadata[member] ?? null;
    Object.assign(body, {
        grantTypes, tokenEndpointAuthMethod: method,
        requirePushedAuthorizationRequests: metadata.require_pushed_authorization_requests ?? false,
        requireSignedRequestObject: metadata.require_signed_request_object ?? false,
    });
    const issues: Issue[] = [];
    for (const [member, field] of Object.entries(URI_LISTS)) {
        const list = uriList(member, metadata[member]);
        issues.push(...list.issues);
        body[field] = list.joined;
    }
    issues.push(...responseTypeIssues(metadata.response_types, grantTypes));
    for (const error of Value.Errors(CLIENT_BODY, body)) {
        const path = error.path.split('/').filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
        issues.push(issue(renamePath(path), 'invalid_value', error.message));
    }
    if (issues.length > 0) throw metadataError(validationFailed(issues));
    return { body, method: String(method) };
}

/** Drops null members: RFC 7591 §3.2.1 answers the metadata that is set. */
function present(entries: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== null && value !== undefined));
}

const listOf = (value: unknown): string[] | null => (typeof value === 'string' ? value.split(' ').filter(Boolean) : null);

/** The metadata of a registered client as RFC 7591 §3.2.1 and RFC 7592 §3 answer it (without its credentials). */
export function metadataOf(record: EntityRecord): Record<string, unknown> {
    const grantTypes = Array.isArray(record.grantTypes) ? record.grantTypes.filter((grant): grant is string => typeof grant === 'string') : [];
    const metadata: Record<string, unknown> = {
        client_id: record.id,
        client_id_issued_at: Math.floor(new Date(String(record.createdAt)).getTime() / 1000),
        redirect_uris: listOf(record.redirectUri),
        post_logout_redirect_uris: listOf(record.postLogoutRedirectUri),
        grant_types: grantTypes,
        response_types: grantTypes.includes('authorization_code') ? [...RESPONSE_TYPES] : [],
    };
    for (const [member, field] of Object.entries(MEMBERS)) if (!(member in metadata)) metadata[member] = record[field];
    return present(metadata);
}
