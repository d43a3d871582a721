import type { RequestContext } from '../../authz/request-context.js';
import { toDbDate } from '../../db/values.js';
import { callerRow } from '../identity/caller.js';
import { recordEvent } from '../events.js';
import { authorizeAction } from '../resource/authorize.js';
import { type Tx, type ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { toRecord, type EntityRecord } from '../resource/records.js';
import { getRow } from '../resource/resolve.js';
import { clientSpec } from './definition.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import { selectRowById, updateRowById } from '../../storage/resource/rows.js';
import { defaultRotationMode, flagColumns, generateSecret, modeOfRow, type SecretMode, type SecretStore } from './secret.js';

export interface RotateSecretDeps extends ResourceDeps {
    store: SecretStore;
}

/** What a rotation may name; both optional (spec client routes). */
export interface RotationInput {
    /** the new secret; generated when absent */
    secret?: string;
    /** the storage mode; by the default rule when absent */
    mode?: SecretMode;
}

export interface RotatedSecret {
    data: EntityRecord;
    /** the plaintext, answered once and never stored in the event */
    meta: { secret: string };
}

/**
 * Rotate a client's secret (spec client routes, States, Events 4): in the requested mode or by the
 * default rule, with a given or generated value, under a row lock; the plaintext is answered once
 * under meta.secret and never stored in the event.
 */
export async function rotateSecret(deps: RotateSecretDeps, definition: ResourceDefinition, ctx: RequestContext, key: string, input: RotationInput): Promise<RotatedSecret> {
    const { spec, hooks } = definition;
    return writeTransaction(deps, { preload: () => ctx.authorizer() }, async (tx: Tx, lock) => {
        // the clients table (definition.spec is clientSpec), read with its column types
        const row = await getRow(tx, clientSpec, ctx, key, lock);
        // client_update on the row, or client_self_manage on oneself; choosing a storage mode
        // writes the denylisted secretHashed/secretEncrypted, so a client cannot change its own
        await authorizeAction(ctx, spec, hooks, 'update', {
            realmId: row.realm_id,
            record: toRecord(definition.fields, row),
            attributeNames: input.mode ? ['secret', 'secretHashed', 'secretEncrypted'] : ['secret'],
        });
        const previousMode = modeOfRow(row);
        const mode = input.mode ?? defaultRotationMode(row);
        const plaintext = input.secret ?? generateSecret();
        await updateRowById(tx, spec, row.id, {
            secret: await deps.store.store(tx, row.realm_id, mode, plaintext),
            ...flagColumns(deps.handle.dialect, mode),
            updated_at: toDbDate(deps.handle.dialect, new Date()),
        });
        const stored = await selectRowById(tx, spec, row.id);
        await recordEvent(tx, deps.handle.dialect, ctx, {
            name: 'clientSecretRotated',
            refType: spec.entity,
            refId: row.id,
            realmId: row.realm_id,
            data: { mode, previousMode },
        });
        return { data: toRecord(definition.fields, stored), meta: { secret: plaintext } };
    });
}

/**
 * A provisioning file's bcrypt value for a hashed client, stored verbatim (spec Versioning beta.65
 * item 4). Only provisioning calls this: the API hashes every value it is given, a bcrypt-looking
 * one included (spec Errors "client secret hash-like input").
 */
export async function keepProvisionedSecretHash(deps: ResourceDeps, clientId: string, hash: string): Promise<void> {
    await updateRowById(deps.db, clientSpec, clientId, { secret: hash, ...flagColumns(deps.handle.dialect, 'hashed') });
}

/** `POST /clients/@me/secret`: the calling client rotates its own secret (client_self_manage). */
export async function rotateOwnSecret(deps: RotateSecretDeps, definition: ResourceDefinition, ctx: RequestContext, input: RotationInput): Promise<RotatedSecret> {
    const row = await callerRow(deps, definition, ctx, 'client');
    return rotateSecret(deps, definition, ctx, row.id, input);
}
