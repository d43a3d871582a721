import { PermissionName, TOKEN_ENDPOINT_AUTH_METHODS } from '@realmgate/core';
import { badRequest, conflict, issue, validationFailed } from '../../errors/app-error.js';
import type { PasswordHasher } from '../../secrets/passwords.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { builtInField, descriptionField, displayNameField, foreignKey, nameField } from '../fields.js';
import { defineResource, type ResourceDefinition } from '../resource/context.js';
import { textOf } from '../resource/input.js';
import { readValue } from '../resource/records.js';
import type { ResourceDeps } from '../resource/deps.js';
import { commonFields, type FieldSpec, type ResourceSpec } from '../resource/spec.js';
import { assertFolderOfRealm, assertNameNotUuid, IDENTITY_NAME_PATTERN, refuseRealmMove, selfManageAuthorizer } from '../users/identity-rules.js';
import type { SessionStore } from '../../tokens/sessions.js';
import { endClientSessions } from '../sessions/lifecycle.js';
import { createSecretStore, modeOfFlags, modeOfRow, SECRET_MAX_LENGTH, type SecretStore } from './secret.js';
import { assertAccessPolicy, assertClientFields } from './uris.js';
import { assertAuthenticationState, authenticationFieldIssues } from './authentication.js';
import type { Columns, TableRow } from '../../storage/resource/table.js';
import { SIGNING_ALGORITHMS } from '../../keys/material.js';
import type { OutboundPolicy } from '../../outbound/address-policy.js';
import { audienceTaken } from '../../storage/resource-servers.js';

const uriField = (name: string, column: string, maxLength: number): FieldSpec => ({
    name, column, type: 'string', nullable: true, maxLength, create: 'optional', update: true,
});

const spec: ResourceSpec<'auth_clients'> = {
    entity: 'client',
    collection: 'clients',
    table: 'auth_clients',
    realm: 'required',
    named: true,
    hasBuiltIn: true,
    // include=realm,path,accessPolicy (each gated by the related resource's read permission)
    relations: {
        realm: { column: 'realm_id', resource: 'realm' },
        path: { column: 'path_id', resource: 'path', readableWithOwner: true },
        accessPolicy: { column: 'access_policy_id', resource: 'policy' },
    },
    fields: [],
};
spec.fields = [
    ...commonFields(spec),
    nameField(128, IDENTITY_NAME_PATTERN),
    // the column is varchar(255)
    { ...displayNameField, maxLength: 255 },
    descriptionField,
    { name: 'active', column: 'active', type: 'boolean', create: 'optional', update: true, default: true },
    builtInField,
    // withheld from default reads; projected through fields=+secret for readers allowed to see it
    { name: 'secret', column: 'secret', type: 'string', nullable: true, maxLength: SECRET_MAX_LENGTH, create: 'optional', update: true, read: 'withheld' },
    // create-time only; an update may carry them (an echoed record) but they are not written
    { name: 'secretHashed', column: 'secret_hashed', type: 'boolean', create: 'optional', update: true, default: false },
    { name: 'secretEncrypted', column: 'secret_encrypted', type: 'boolean', create: 'optional', update: true, default: false },
    uriField('redirectUri', 'redirect_uri', 4096),
    uriField('postLogoutRedirectUri', 'post_logout_redirect_uri', 4096),
    // null: every grant but the device code grant, which must be listed by its URN (spec)
    { name: 'grantTypes', column: 'grant_types', type: 'stringList', nullable: true, maxLength: 64, create: 'optional', update: true },
    uriField('baseUrl', 'base_url', 2048),
    uriField('backchannelLogoutUri', 'backchannel_logout_uri', 2048),
    // a client an administrator marks as first-party is not asked for consent
    { name: 'firstParty', column: 'first_party', type: 'boolean', create: 'optional', update: true, default: false },
    // OIDC Registration §2 `id_token_signed_response_alg`: null signs ID tokens (and logout tokens,
    // Back-Channel Logout §2.4) with RS256, the algorithm every relying party supports (Core §15.1)
    { name: 'idTokenSignedResponseAlg', column: 'id_token_signed_response_alg', type: 'enum', values: SIGNING_ALGORITHMS, nullable: true, create: 'optional', update: true },
    foreignKey('accessPolicyId', 'access_policy_id', { create: 'optional', update: true, nullable: true }),
    foreignKey('pathId', 'path_id', { create: 'optional', update: true, nullable: true }),
    // API.md §8: how the client authenticates at the token endpoint (OIDC Registration §2), its
    // public keys for private_key_jwt and signed request objects (inline, or fetched from a URL)
    { name: 'tokenEndpointAuthMethod', column: 'token_endpoint_auth_method', type: 'enum', values: TOKEN_ENDPOINT_AUTH_METHODS, nullable: true, create: 'optional', update: true },
    { name: 'jwks', column: 'jwks', type: 'json', nullable: true, create: 'optional', update: true, filter: false, sort: false },
    uriField('jwksUri', 'jwks_uri', 2048),
    // RFC 9126 §6 require_pushed_authorization_requests; RFC 9101 §10.5 require_signed_request_object
    { name: 'requirePushedAuthorizationRequests', column: 'require_pushed_authorization_requests', type: 'boolean', create: 'optional', update: true, default: false },
    { name: 'requireSignedRequestObject', column: 'require_signed_request_object', type: 'boolean', create: 'optional', update: true, default: false },
    // RFC 8707 §2: the resource indicator naming this client as a resource server of its realm
    uriField('audience', 'audience', 2048),
];

export const clientSpec = spec;

export interface ClientDeps extends ResourceDeps {
    passwords: PasswordHasher;
    secrets: SecretBox;
    sessions: SessionStore;
    /** which hosts the server may connect to (OUTBOUND_ALLOWED_HOSTS): the back-channel logout URI is judged by it */
    outbound: OutboundPolicy;
}

/** Spec Errors: secretHashed and secretEncrypted declared together answer 400. */
function refuseBothModes(input: Record<string, unknown>): void {
    if (input.secretHashed === true && input.secretEncrypted === true) {
        throw validationFailed([issue(['secretEncrypted'], 'conflict', 'secretHashed and secretEncrypted cannot both be true')]);
    }
}

async function assertReferences(tx: Parameters<typeof assertFolderOfRealm>[0], input: Record<string, unknown>, realmId: unknown, outbound: OutboundPolicy): Promise<void> {
    assertClientFields(input, outbound);
    const issues = authenticationFieldIssues(input, outbound);
    if (issues.length > 0) throw validationFailed(issues);
    await assertFolderOfRealm(tx, input.pathId, realmId);
    await assertAccessPolicy(tx, input.accessPolicyId, realmId);
}

/**
 * RFC 8707 §2: a resource indicator names one resource server of the realm, so an audience is
 * unique within it (409, as any other unique value taken).
 */
async function assertAudienceFree(tx: Parameters<typeof audienceTaken>[0], deps: ClientDeps, realmId: unknown, audience: unknown, clientId: string | null): Promise<void> {
    if (typeof audience !== 'string' || typeof realmId !== 'string') return;
    if (await audienceTaken(tx, realmId, audience, clientId, deps.handle.dialect !== 'sqlite')) {
        throw conflict('Another client of the realm already has this audience.');
    }
}

/** The secret column of an update; the storage mode stays the one chosen at creation. */
async function updatedSecret(store: SecretStore, tx: Parameters<SecretStore['store']>[0], row: TableRow<'auth_clients'>, secret: unknown): Promise<Columns> {
    if (secret === undefined) return {};
    const mode = modeOfRow(row);
    if (mode === 'hashed') {
        // spec client routes: a hashed secret is rotated, never overwritten through an update
        throw badRequest('The secret of a client with a hashed secret cannot be set through an update; rotate it with POST /clients/:id/secret.', [
            issue(['secret'], 'rotation_required', 'use POST /clients/:id/secret'),
        ]);
    }
    if (typeof secret !== 'string') return { secret: null };
    // a plain client takes the value as sent; an encrypted one is re-encrypted
    return { secret: await store.store(tx, row.realm_id, mode, secret) };
}

/**
 * Clients (API.md §3, spec "Other resource fields" and client routes). A create without a secret
 * makes a public client — the spec's client without a secret that uses the batch check instead of
 * client credentials — so nothing is generated then; `POST /clients/:id/secret` generates one and
 * returns it once.
 */
export function clientsDefinition(deps: ClientDeps): ResourceDefinition<'auth_clients'> {
    const store = createSecretStore(deps);
    return defineResource<'auth_clients'>({
        spec,
        fields: spec.fields,
        hooks: {
            // spec beta.64 item 1: dropped columns; values in requests are stripped silently
            strippedBody: ['scope', 'rootUrl'],
            authorize: selfManageAuthorizer('client', PermissionName.CLIENT_SELF_MANAGE),
            async revealWithheld(field, row) {
                if (field.name === 'secret') return store.reveal(deps.db, row.secret);
                return readValue(field, row[field.column]);
            },
            async prepareCreate(_ctx, input, tx) {
                refuseBothModes(input);
                assertNameNotUuid(input.name);
                await assertReferences(tx, input, input.realmId, deps.outbound);
                await assertAudienceFree(tx, deps, input.realmId, input.audience, null);
                assertAuthenticationState({
                    method: input.tokenEndpointAuthMethod ?? null,
                    hasSecret: typeof input.secret === 'string',
                    secretHashed: input.secretHashed === true,
                    hasJwks: input.jwks !== undefined && input.jwks !== null,
                    hasJwksUri: typeof input.jwksUri === 'string',
                });
                if (typeof input.secret !== 'string') return {};
                const mode = modeOfFlags(input.secretHashed, input.secretEncrypted);
                return { secret: await store.store(tx, textOf(input, 'realmId') ?? '', mode, input.secret) };
            },
            async prepareUpdate(_ctx, row, input, tx) {
                refuseRealmMove('client', row, input);
                refuseBothModes(input);
                if (input.name !== undefined && input.name !== row.name) assertNameNotUuid(input.name);
                await assertReferences(tx, input, row.realm_id, deps.outbound);
                await assertAudienceFree(tx, deps, row.realm_id, input.audience, row.id);
                // the members' rules hold for the row as it will be: the body over the stored values
                const after = <T>(member: string, stored: T): unknown => (input[member] === undefined ? stored : input[member]);
                assertAuthenticationState({
                    method: after('tokenEndpointAuthMethod', row.token_endpoint_auth_method),
                    hasSecret: after('secret', row.secret) !== null,
                    secretHashed: Boolean(row.secret_hashed),
                    hasJwks: after('jwks', row.jwks) !== null,
                    hasJwksUri: after('jwksUri', row.jwks_uri) !== null,
                });
                return {
                    ...await updatedSecret(store, tx, row, input.secret),
                    // create-time only (spec): the stored flags are written back, so they are not changed
                    secret_hashed: row.secret_hashed,
                    secret_encrypted: row.secret_encrypted,
                };
            },
            // spec States: deactivating a client ends its sessions
            afterUpdate: endClientSessions(deps.sessions),
        },
    });
}
