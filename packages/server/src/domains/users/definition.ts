import { PermissionName } from '@realmgate/core';
import { Type } from '@sinclair/typebox';
import { fromDbBool, toDbBool } from '../../db/values.js';
import { issue, validationFailed } from '../../errors/app-error.js';
import type { PasswordHasher } from '../../secrets/passwords.js';
import { displayNameField, foreignKey, nameField } from '../fields.js';
import { defineResource, type Input, type ResourceDefinition } from '../resource/context.js';
import { commonFields, type FieldSpec, type ResourceSpec } from '../resource/spec.js';
import { assertFolderOfRealm, assertNameNotUuid, IDENTITY_NAME_PATTERN, refuseRealmMove, selfManageAuthorizer } from './identity-rules.js';
import type { ResourceDeps } from '../resource/deps.js';
import type { SessionStore } from '../../tokens/sessions.js';
import { endUserSessions } from '../sessions/lifecycle.js';
import { assertCurrentPassword } from './current-password.js';
import type { Columns, TableRow } from '../../storage/resource/table.js';
import { grantDefaultRoles } from '../../storage/default-roles.js';

/**
 * Password bounds. 5 is the floor the field's servers use (Authup); 512 bounds the work a request
 * can cause. bcrypt reads the first 72 bytes only, so longer passwords add no strength beyond them.
 */
export const PASSWORD_MIN_LENGTH = 5;
export const PASSWORD_MAX_LENGTH = 512;

/** Shape check only; ownership of an address is what the activation round-trip (emailVerified) proves. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';

const text = (name: string, column: string): FieldSpec => ({ name, column, type: 'string', nullable: true, maxLength: 255, create: 'optional', update: true });

const spec: ResourceSpec<'auth_users'> = {
    entity: 'user',
    collection: 'users',
    table: 'auth_users',
    realm: 'required',
    named: true,
    // include=realm,path (each gated by the related resource's read permission)
    relations: { realm: { column: 'realm_id', resource: 'realm' }, path: { column: 'path_id', resource: 'path', readableWithOwner: true } },
    fields: [],
};
spec.fields = [
    ...commonFields(spec),
    nameField(128, IDENTITY_NAME_PATTERN),
    // locked by default like the column (a name is a login handle; renaming needs an explicit unlock)
    { name: 'nameLocked', column: 'name_locked', type: 'boolean', create: 'optional', update: true, default: true },
    text('firstName', 'first_name'),
    text('lastName', 'last_name'),
    // the column is varchar(255)
    { ...displayNameField, maxLength: 255 },
    // spec "Other resource fields": withheld from default reads
    { name: 'email', column: 'email', type: 'string', nullable: true, maxLength: 255, pattern: EMAIL_PATTERN, create: 'optional', update: true, read: 'withheld' },
    { name: 'emailVerified', column: 'email_verified', type: 'boolean', create: 'optional', update: true, default: false },
    { name: 'active', column: 'active', type: 'boolean', create: 'optional', update: true, default: true },
    text('status', 'status'),
    text('statusMessage', 'status_message'),
    foreignKey('pathId', 'path_id', { create: 'optional', update: true, nullable: true }),
];

export const userSpec = spec;

/** The write-only password member of a user body (stored as a bcrypt hash). */
export const USER_PASSWORD_SCHEMA = Type.Union([Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }), Type.Null()]);

export interface UserDeps extends ResourceDeps {
    passwords: PasswordHasher;
    sessions: SessionStore;
}

/** The column values a password member writes: a bcrypt hash, or null (no password login). */
async function passwordColumn(passwords: PasswordHasher, value: unknown): Promise<Columns> {
    if (value === undefined) return {};
    return { password: typeof value === 'string' ? await passwords.hash(value) : null };
}

function lockedAfter(row: TableRow<'auth_users'>, input: Input): boolean {
    if (typeof input.nameLocked === 'boolean') return input.nameLocked;
    return fromDbBool(row.name_locked);
}

/**
 * Users (API.md §3). The password is a write-only body member stored as a bcrypt hash; it, the
 * reset and activation hashes are no field at all, so no read, list, include or event can carry
 * them. email is withheld (spec Events 5: not in events either).
 */
export function usersDefinition(deps: UserDeps): ResourceDefinition<'auth_users'> {
    const dialect = deps.handle.dialect;
    return defineResource<'auth_users'>({
        spec,
        fields: spec.fields,
        hooks: {
            extraBody: {
                password: USER_PASSWORD_SCHEMA,
                // a self-service password or email change proves the current password (current-password.ts)
                currentPassword: Type.String({ maxLength: PASSWORD_MAX_LENGTH }),
            },
            authorize: selfManageAuthorizer('user', PermissionName.USER_SELF_MANAGE),
            async prepareCreate(_ctx, input, tx) {
                assertNameNotUuid(input.name);
                await assertFolderOfRealm(tx, input.pathId, input.realmId);
                return passwordColumn(deps.passwords, input.password);
            },
            async prepareUpdate(ctx, row, input, tx) {
                refuseRealmMove('user', row, input);
                await assertCurrentPassword(deps.passwords, ctx, row, input);
                if (input.name !== undefined && input.name !== row.name) {
                    // the lock as it stands after this update: unlocking and renaming may go together
                    if (lockedAfter(row, input)) {
                        throw validationFailed([issue(['name'], 'locked', 'cannot change while nameLocked is true')]);
                    }
                    assertNameNotUuid(input.name);
                }
                await assertFolderOfRealm(tx, input.pathId, row.realm_id);
                const values: Columns = await passwordColumn(deps.passwords, input.password);
                if (input.email !== undefined && input.email !== row.email) {
                    // spec "Other resource fields": cleared automatically when the email changes
                    if (input.emailVerified === undefined) values.email_verified = toDbBool(dialect, false);
                    // a link mailed to the old address proves nothing about the new one
                    Object.assign(values, { activate_hash: null, activate_at: null, reset_hash: null, reset_at: null });
                }
                return values;
            },
            // API.md §8: the realm's default roles, in the transaction that creates the user (POST and
            // PUT /users, provisioning files), recorded as the grants of /user-roles are
            async afterCreate(ctx, row, tx) {
                await grantDefaultRoles(tx, dialect, { id: row.id, realmId: row.realm_id }, {
                    scope: 'api', actorType: ctx.actor.identity?.type ?? null, actorId: ctx.actor.identity?.id ?? null,
                    request: { ip: ctx.request.ip ?? null, method: ctx.request.method ?? null, path: ctx.request.path ?? null },
                }, new Date());
            },
            // spec States: a password reset, a password change and a deactivation end sessions
            afterUpdate: endUserSessions(deps.sessions),
        },
    });
}
