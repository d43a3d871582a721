import { randomUUID } from 'node:crypto';
import { BuiltInPolicyType } from '@realmgate/access';
import { ErrorCode, PermissionName } from '@realmgate/core';
import { Type } from '@sinclair/typebox';
import { toDbDate, type DialectName } from '../../db/values.js';
import { forbidden, AppError, issue, validationFailed } from '../../errors/app-error.js';
import type { RequestContext } from '../../authz/request-context.js';
import { importSigningMaterial, generateSigningMaterial, KeyMaterialError, SIGNING_ALGORITHMS, DEFAULT_SIGNING_ALGORITHM, type SigningAlgorithm } from '../../keys/material.js';
import { ENCRYPTION_ALGORITHM, encryptionKeyColumns, KEY_STATUSES, KEY_USES, publicJwkOf, signingKeyColumns } from '../../keys/store.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { authenticatorsEncryptedUnder, deleteAuthenticators } from '../../storage/authenticators.js';
import { clearProviderSecretsUnder, providersEncryptedUnder } from '../../storage/identity-providers.js';
import { clearClientSecrets, clientsEncryptedUnder } from '../../storage/clients-admin.js';
import { buryKeyTombstone, setKeyPublicJwk } from '../../storage/keys-admin.js';
import { keyIdIsBuried } from '../../storage/keys.js';
import { defineResource, type Input, type ResourceDefinition, type Tx } from '../resource/context.js';
import type { EntityRecord } from '../resource/records.js';
import { commonFields, realmMatchOf, type ResourceSpec } from '../resource/spec.js';
import type { Columns, TableRow } from '../../storage/resource/table.js';

type KeyRow = TableRow<'auth_keys'>;

const spec: ResourceSpec<'auth_keys'> = {
    entity: 'key',
    collection: 'keys',
    table: 'auth_keys',
    realm: 'required',
    named: false,
    relations: { realm: { column: 'realm_id', resource: 'realm' } },
    fields: [],
};
spec.fields = [
    // a key stays in the realm it was made for: its kid is published under that realm's JWKS
    ...commonFields(spec).map((field) => (field.name === 'realmId' ? { ...field, update: false } : field)),
    { name: 'type', column: 'type', type: 'string', create: false, update: false },
    { name: 'use', column: 'use', type: 'enum', values: KEY_USES, create: 'optional', update: false, default: 'sig' },
    { name: 'algorithm', column: 'algorithm', type: 'enum', values: [...SIGNING_ALGORITHMS, ENCRYPTION_ALGORITHM], create: 'optional', update: false },
    { name: 'status', column: 'status', type: 'enum', values: KEY_STATUSES, create: 'optional', update: true, default: 'active' },
    { name: 'priority', column: 'priority', type: 'integer', create: 'optional', update: true, default: 0 },
    // the public JWK of a signing key; null for an encryption key, whose material is all secret
    { name: 'publicKey', column: 'public_key', type: 'json', create: false, update: false, filter: false, sort: false },
];


/** Imported material: a PEM document or a private JWK (its size capped well above a 4096-bit RSA JWK). */
const PrivateKeyBody = Type.Union([
    Type.String({ minLength: 1, maxLength: 16_384 }),
    Type.Object({}, { additionalProperties: true, maxProperties: 32 }),
]);

/**
 * Spec Authentication rule 3: importing signature key material needs a key_create grant that
 * reaches beyond the caller's own realm. Asked of the request's evaluator at a realm nobody owns
 * (a fresh UUID), so only an `any` reach passes; realm administrators (own/ownOrNull) may generate.
 */
async function assertImportReach(ctx: RequestContext, record: EntityRecord): Promise<void> {
    const { privateKey: _material, ...attributes } = record;
    const authorizer = await ctx.authorizer();
    const data = { ...realmMatchOf(randomUUID()), [BuiltInPolicyType.ATTRIBUTES]: attributes };
    if (!authorizer.allows(PermissionName.KEY_CREATE, data)) {
        throw forbidden('Importing key material needs a key_create grant that reaches beyond your own realm; realm administrators can generate keys.');
    }
}

/** A requested signing algorithm (the body schema admits SIGNING_ALGORITHMS and A256GCM, refused above). */
function signingAlgorithmOf(value: unknown): SigningAlgorithm | undefined {
    return SIGNING_ALGORITHMS.find((algorithm) => algorithm === value);
}

/** The columns of a new key: generated, or imported and validated (400 with issues when unusable). */
async function newKeyColumns(secrets: SecretBox, input: Record<string, unknown>): Promise<Columns> {
    if (input.use === 'enc') {
        const issues = [
            ...(input.privateKey !== undefined ? [issue(['privateKey'], 'not_importable', 'encryption keys are generated, never imported')] : []),
            ...(input.algorithm !== undefined && input.algorithm !== ENCRYPTION_ALGORITHM ? [issue(['algorithm'], 'invalid_algorithm', `an encryption key uses ${ENCRYPTION_ALGORITHM}`)] : []),
        ];
        if (issues.length) throw validationFailed(issues);
        return encryptionKeyColumns(secrets);
    }
    if (input.algorithm === ENCRYPTION_ALGORITHM) throw validationFailed([issue(['algorithm'], 'invalid_algorithm', `a signing key uses one of ${SIGNING_ALGORITHMS.join(', ')}`)]);
    const algorithm = signingAlgorithmOf(input.algorithm);
    if (input.privateKey === undefined) return signingKeyColumns(secrets, await generateSigningMaterial(algorithm ?? DEFAULT_SIGNING_ALGORITHM));
    try {
        return signingKeyColumns(secrets, importSigningMaterial(input.privateKey, algorithm));
    } catch (error) {
        if (error instanceof KeyMaterialError) throw validationFailed([issue(['privateKey'], 'invalid_key', error.message)]);
        throw error;
    }
}

/** `?force=true` on DELETE /keys/:id (spec client routes); anything but true/false is a malformed query. */
function forceOf(query: Record<string, unknown>): boolean {
    const value = query.force;
    if (value === undefined || value === 'false') return false;
    if (value === 'true') return true;
    throw validationFailed([issue(['force'], 'invalid_value', 'force is true or false')]);
}

/**
 * A deleted signing key leaves its public half behind, so its tokens answer inactive_token rather
 * than passing for forgeries (spec States, Errors). Tombstones older than the longest token
 * lifetime can vouch for nothing unexpired and are pruned on the way.
 */
async function buryKey(dialect: DialectName, row: KeyRow, tx: Tx, tokenMaxAge: number): Promise<void> {
    if (typeof row.public_key !== 'string') return;
    const now = new Date();
    await buryKeyTombstone(tx, {
        id: row.id, algorithm: row.algorithm, public_key: row.public_key, realm_id: row.realm_id,
        deleted_at: toDbDate(dialect, now),
    }, toDbDate(dialect, new Date(now.getTime() - tokenMaxAge * 1000)));
}

/**
 * A deleted signing key's id stays dead while its tombstone lives (every token it signed may still
 * be presented): a new row under it — `PUT /keys/<kid>` creates one — would make those tokens
 * verify again, possibly in another realm. 409 entity_conflict, as for an id a live row holds
 * (API.md §1: the request is well-formed; the id conflicts with the server's state). The row
 * was inserted in this transaction: the error rolls it back.
 */
async function refuseBuriedId(id: string, tx: Tx): Promise<void> {
    if (await keyIdIsBuried(tx, id)) throw new AppError(ErrorCode.ENTITY_CONFLICT, 'This key id belonged to a deleted key; a new key takes a new id.');
}

/**
 * Spec Errors: DELETE /keys/:id answers 409 while client secrets or multi-factor seeds are
 * encrypted under the key (their envelope names it: enc:v1:<keyId>:…); forced, those secrets (and
 * the authenticators holding the seeds) are destroyed in the delete's transaction, since nothing
 * could decrypt them afterwards.
 */
async function releaseDependents(dialect: DialectName, row: KeyRow, tx: Tx, query: Input, tokenMaxAge: number): Promise<null> {
    const force = forceOf(query);
    if (row.use === 'sig') {
        await buryKey(dialect, row, tx, tokenMaxAge);
        return null;
    }
    if (row.use !== 'enc') return null;
    const dependents = await clientsEncryptedUnder(tx, row.id);
    // TOTP seeds are sealed under the realm's encryption key as well
    const seeds = await authenticatorsEncryptedUnder(tx, row.id);
    // identity-provider client secrets and bind passwords too (spec client routes)
    const providers = await providersEncryptedUnder(tx, row.id);
    if (dependents.length === 0 && seeds.length === 0 && providers.length === 0) return null;
    if (!force) {
        throw new AppError(ErrorCode.ENTITY_CONFLICT,
            `${dependents.length} client secret(s), ${providers.length} identity provider(s) and ${seeds.length} multi-factor seed(s) have secrets encrypted under this key; delete with ?force=true to destroy them.`);
    }
    if (dependents.length > 0) await clearClientSecrets(tx, dependents, toDbDate(dialect, new Date()));
    if (providers.length > 0) await clearProviderSecretsUnder(tx, dialect, row.id, new Date());
    // an authenticator whose seed cannot be decrypted can never verify a code: it goes with its key
    await deleteAuthenticators(tx, seeds);
    return null;
}

/**
 * Keys (API.md §3 `/keys`): per-realm signing keys (ES256/RS256) and encryption keys (A256GCM).
 * Private material is written, never read: no field maps private_key (DESIGN.md §5).
 */
export function keysDefinition(deps: {
    secrets: SecretBox;
    handle: { dialect: DialectName };
    config: { tokenAccessMaxAge: number; tokenRefreshMaxAge: number };
}): ResourceDefinition<'auth_keys'> {
    const tokenMaxAge = Math.max(deps.config.tokenAccessMaxAge, deps.config.tokenRefreshMaxAge);
    return defineResource<'auth_keys'>({
        spec,
        fields: spec.fields,
        hooks: {
            extraBody: { privateKey: PrivateKeyBody },
            async authorize(ctx, action, subject, fallback) {
                await fallback();
                if (action === 'create' && subject.record.privateKey !== undefined) await assertImportReach(ctx, subject.record);
            },
            decorateRecord(record, row) {
                if (row.use === 'sig' && row.public_key) record.publicKey = publicJwkOf(row);
                return record;
            },
            prepareCreate: async (_ctx, input) => newKeyColumns(deps.secrets, input),
            async afterCreate(_ctx, row, tx) {
                await refuseBuriedId(row.id, tx);
                // the stored JWK names its kid (the row id, known only once the row exists)
                if (row.use !== 'sig') return;
                const publicKey = JSON.stringify(publicJwkOf(row));
                await setKeyPublicJwk(tx, row.id, publicKey);
            },
            async prepareUpdate(_ctx, row, input) {
                // key material is fixed for the life of a kid: a new key is a new row
                if (input.privateKey !== undefined) throw validationFailed([issue(['privateKey'], 'immutable', 'key material cannot change; create a new key')]);
                // an upsert (PUT) carries the create body: a key never moves to another realm's JWKS
                if (input.realmId !== undefined && input.realmId !== row.realm_id) throw validationFailed([issue(['realmId'], 'immutable', 'a key stays in its realm')]);
                return {};
            },
            refuseDelete: (row, tx, _ctx, query) => releaseDependents(deps.handle.dialect, row, tx, query, tokenMaxAge),
        },
    });
}
