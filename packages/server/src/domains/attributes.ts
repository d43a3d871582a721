import { issue, validationFailed } from '../errors/app-error.js';
import type { TableName } from '../db/schema.js';
import { findOwnerRealm, type AttributeOwnerTable } from '../storage/attributes.js';
import type { Db, ResourceDefinition } from './resource/context.js';
import { commonFields, type ResourceSpec } from './resource/spec.js';
import { foreignKey } from './fields.js';

/** Serialized size cap of one attribute value: attributes are claims and policy input, not storage. */
const ATTRIBUTE_VALUE_MAX_BYTES = 16 * 1024;

export interface Owner {
    /** `user` or `role` */
    kind: string;
    table: AttributeOwnerTable;
    /** REST member and column naming the owner */
    key: string;
    column: string;
    /** a global role's attributes are global rows (realm null); a user always has a realm */
    realm: 'required' | 'nullable';
}

function assertValueSize(input: Record<string, unknown>): void {
    if (input.value === undefined || input.value === null) return;
    // the stored form: JSON text (a string stays a string, spec beta.68 item 3)
    if (Buffer.byteLength(JSON.stringify(input.value), 'utf8') > ATTRIBUTE_VALUE_MAX_BYTES) {
        throw validationFailed([issue(['value'], 'invalid_maxLength', `must serialize to at most ${ATTRIBUTE_VALUE_MAX_BYTES} bytes`)]);
    }
}

/**
 * An attribute's realm is its owner's: it is the REALM_MATCH of every decision about the
 * attribute, so a caller reaching realm A cannot read or write attributes of realm B's owners.
 * It is never taken from the body; a body realmId (or route realm) naming another realm is refused.
 */
export function ownerRealm(owner: Owner) {
    return async (ctx: { routeRealmId: string | null }, input: Record<string, unknown>, db: Db): Promise<string | null> => {
        const found = await findOwnerRealm(db, owner.table, String(input[owner.key]).toLowerCase());
        if (!found) throw validationFailed([issue([owner.key], 'invalid_reference', `names no ${owner.kind}`)]);
        const realmId = found.realm_id ?? null;
        if (input.realmId !== undefined && input.realmId !== realmId) {
            throw validationFailed([issue(['realmId'], 'invalid_value', `must be the realm of the ${owner.kind} (or be omitted)`)]);
        }
        if (ctx.routeRealmId !== null && ctx.routeRealmId !== realmId) {
            throw validationFailed([issue([owner.key], 'invalid_reference', `names a ${owner.kind} of another realm than the route's`)]);
        }
        return realmId;
    };
}

function attributesDefinition(owner: Owner): ResourceDefinition {
    const spec: ResourceSpec = {
        entity: `${owner.kind}_attribute`,
        collection: `${owner.kind}-attributes`,
        table: `auth_${owner.kind}_attributes` as TableName,
        realm: owner.realm,
        named: false,
        relations: { [owner.kind]: { column: owner.column, resource: owner.kind }, realm: { column: 'realm_id', resource: 'realm' } },
        fields: [],
    };
    spec.fields = [
        ...commonFields(spec),
        { name: 'name', column: 'name', type: 'string', maxLength: 255, pattern: '^\\S+$', create: 'required', update: true },
        // JSON-serialized on write, both forms read (records.ts parseJson; spec "attribute values")
        { name: 'value', column: 'value', type: 'json', nullable: true, create: 'optional', update: true },
        foreignKey(owner.key, owner.column),
    ];
    return {
        spec,
        fields: spec.fields,
        hooks: {
            createRealm: ownerRealm(owner),
            async prepareCreate(_ctx, input) {
                assertValueSize(input);
                return {};
            },
            async prepareUpdate(_ctx, row, input) {
                if (input.realmId !== undefined && input.realmId !== row.realm_id) {
                    throw validationFailed([issue(['realmId'], 'immutable', `is the realm of the ${owner.kind}`)]);
                }
                assertValueSize(input);
                return {};
            },
        },
    };
}

/** `/user-attributes`: permissions user_attribute_*, reach by the user's realm. */
export const userAttributesDefinition = attributesDefinition({
    kind: 'user', table: 'auth_users', key: 'userId', column: 'user_id', realm: 'required',
});

/** `/role-attributes`: permissions role_attribute_*, reach by the role's realm (null for a global role). */
export const roleAttributesDefinition = attributesDefinition({
    kind: 'role', table: 'auth_roles', key: 'roleId', column: 'role_id', realm: 'nullable',
});
