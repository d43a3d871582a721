import { TOKEN_KINDS } from '@realmgate/core';
import type { Condition } from '@realmgate/access';
import type { RequestContext } from '../../authz/request-context.js';
import type { ResourceDefinition } from '../resource/context.js';
import { commonFields, readOnlyField as readOnly, type ResourceSpec } from '../resource/spec.js';

/** Every session and token field is written by logins and refreshes, never through the API. */
const sessionSpec: ResourceSpec = {
    entity: 'session',
    collection: 'sessions',
    table: 'auth_sessions',
    realm: 'required',
    named: false,
    relations: {
        realm: { column: 'realm_id', resource: 'realm' },
        user: { column: 'user_id', resource: 'user' },
        client: { column: 'client_id', resource: 'client' },
    },
    fields: [],
};
sessionSpec.fields = [
    // createdAt is the authentication time (spec "Other resource fields")
    ...commonFields(sessionSpec).map((field) => ({ ...field, create: false as const, update: false })),
    readOnly('sub', 'sub', 'uuid'),
    readOnly('subKind', 'sub_kind', 'enum', { values: ['user', 'client'] }),
    readOnly('userId', 'user_id', 'uuid', { nullable: true }),
    readOnly('clientId', 'client_id', 'uuid', { nullable: true }),
    readOnly('ipAddress', 'ip_address', 'string', { nullable: true }),
    readOnly('userAgent', 'user_agent', 'string', { nullable: true }),
    // filterable under the range operators (spec "Other resource fields": seenAt filterable)
    readOnly('seenAt', 'seen_at', 'date', { nullable: true }),
    readOnly('expiresAt', 'expires_at', 'date'),
    // beyond the spec's list: a revoked session stays readable, so a list says which ones ended
    readOnly('revokedAt', 'revoked_at', 'date', { nullable: true }),
];

const tokenSpec: ResourceSpec = {
    entity: 'session_token',
    collection: 'session-tokens',
    table: 'auth_session_tokens',
    // no realm column: decided by the realm of the session the token belongs to
    realm: 'referenced',
    realmReference: { column: 'session_id', table: 'auth_sessions' },
    named: false,
    relations: { session: { column: 'session_id', resource: 'session' } },
    fields: [
        readOnly('id', 'id', 'uuid'),
        // createdAt alone: a token row is never updated (spec "Schema and statistics facets")
        readOnly('createdAt', 'created_at', 'date'),
        readOnly('kind', 'kind', 'enum', { values: TOKEN_KINDS }),
        readOnly('sessionId', 'session_id', 'uuid'),
        readOnly('expiresAt', 'expires_at', 'date'),
    ],
};

;

/**
 * The caller's own sessions: readable without session_read, as their owner may end them
 * (DELETE /sessions/:id, revoke.ts) — the account console lists them.
 */
function ownSessions(ctx: RequestContext): Condition | null {
    const identity = ctx.actor.identity;
    if (!identity) return null;
    return { operator: 'and', conditions: [{ operator: 'eq', field: 'sub', value: identity.id }, { operator: 'eq', field: 'subKind', value: identity.type }] };
}

/**
 * Sessions (API.md §3: read, delete). A login creates the row and every token names it; the API
 * reads them and ends them (revoked_at), it never creates or edits one. DELETE revokes instead
 * of deleting, so the generic delete is replaced by revoke.ts (mounted by the HTTP layer).
 */
export function sessionsDefinition(): ResourceDefinition {
    return { spec: sessionSpec, fields: sessionSpec.fields, hooks: { ownRows: ownSessions }, writes: [] };
}

/**
 * Session tokens (API.md §3): the stored refresh tokens. Deleting a row is the revocation of that
 * refresh token (its session lives on), so the generic delete applies as it is.
 */
export function sessionTokensDefinition(): ResourceDefinition {
    return { spec: tokenSpec, fields: tokenSpec.fields, hooks: {}, writes: ['delete'] };
}
