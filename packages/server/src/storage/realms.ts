import { isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { Database, DbBool } from '../db/schema.js';
import { fromDbBool } from '../db/values.js';

/** What protocol and route code needs of a realm: its id and its name (the issuer path segment). */
export interface RealmRef {
    id: string;
    name: string;
    /** API.md §8: null, or 'fapi2' (oauth2/security-profile.ts); read by the protocol lookups, absent elsewhere */
    securityProfile?: string | null;
    /** RFC 9068 §2.2 (migration 0026): the `aud` of an access token that names no resource; null: the realm's issuer. Read by the protocol lookups */
    defaultAudience?: string | null;
}

const realmBy = (column: 'id' | 'name') => prepareQuery<RealmRef>((db, param) => db.selectFrom('auth_realms').select(['id', 'name', 'security_profile as securityProfile', 'default_audience as defaultAudience']).where(column, '=', param(0)));
const REALM_BY_ID = realmBy('id');
const REALM_BY_NAME = realmBy('name');

/** The realm with this id (a UUID in any case); undefined when there is none. */
export function findRealmById(db: Kysely<Database>, id: string): Promise<RealmRef | undefined> {
    return REALM_BY_ID.first(db, [id.toLowerCase()]);
}

/** The realm with this name; undefined when there is none. */
export function findRealmByName(db: Kysely<Database>, name: string): Promise<RealmRef | undefined> {
    return REALM_BY_NAME.first(db, [name]);
}

/** A realm's primary colour (API.md §8 `primaryColor`, migration 0025), by id or name: null when it has none, undefined when there is no realm. */
export async function findRealmPrimaryColor(db: Kysely<Database>, idOrName: string): Promise<string | null | undefined> {
    const query = db.selectFrom('auth_realms').select('primary_color');
    const row = await (isUuid(idOrName) ? query.where('id', '=', idOrName.toLowerCase()) : query.where('name', '=', idOrName)).executeTakeFirst();
    return row?.primary_color;
}

/**
 * A realm named in a path or parameter by id or by name (API.md §1: `:id` accepts a UUID or a
 * name). A realm name can never be a UUID, so the form of the value decides the column.
 */
export function findRealmByIdOrName(db: Kysely<Database>, value: string): Promise<RealmRef | undefined> {
    return isUuid(value) ? findRealmById(db, value) : findRealmByName(db, value);
}

const realmOfOwner = (table: 'auth_clients' | 'auth_users') => prepareQuery<RealmRef>((db, param) => db.selectFrom(`${table as 'auth_clients'} as owner`)
    .innerJoin('auth_realms', 'auth_realms.id', 'owner.realm_id')
    .select(['auth_realms.id', 'auth_realms.name', 'auth_realms.security_profile as securityProfile', 'auth_realms.default_audience as defaultAudience']).where('owner.id', '=', param(0)));
const REALM_OF_CLIENT = realmOfOwner('auth_clients');
const REALM_OF_USER = realmOfOwner('auth_users');

/** The realm of the client with this id (lower-case UUID); undefined when there is none. */
export function findRealmOfClient(db: Kysely<Database>, clientId: string): Promise<RealmRef | undefined> {
    return REALM_OF_CLIENT.first(db, [clientId]);
}

/** The realm of the user with this id (lower-case UUID); undefined when there is none. */
export function findRealmOfUser(db: Kysely<Database>, userId: string): Promise<RealmRef | undefined> {
    return REALM_OF_USER.first(db, [userId]);
}

/** A realm's protocol switches (API.md §8): what its discovery document advertises and its endpoints allow. */
export interface RealmProtocolFlags {
    securityProfile: string | null;
    requirePushedAuthorizationRequests: boolean;
    dynamicRegistrationEnabled: boolean;
    /** API.md §8 (migration 0023) */
    passkeysEnabled: boolean;
}

const REALM_FLAGS = prepareQuery<{ security_profile: string | null; require_pushed_authorization_requests: unknown; dynamic_registration_enabled: unknown; passkeys_enabled: unknown }>(
    (db, param) => db.selectFrom('auth_realms').select(['security_profile', 'require_pushed_authorization_requests', 'dynamic_registration_enabled', 'passkeys_enabled']).where('id', '=', param(0)),
);

/** The protocol switches of the realm with this id (lower-case UUID); undefined when there is none. */
export async function findRealmProtocolFlags(db: Kysely<Database>, realmId: string): Promise<RealmProtocolFlags | undefined> {
    const row = await REALM_FLAGS.first(db, [realmId]);
    if (!row) return undefined;
    return {
        securityProfile: row.security_profile,
        requirePushedAuthorizationRequests: fromDbBool(row.require_pushed_authorization_requests as DbBool),
        dynamicRegistrationEnabled: fromDbBool(row.dynamic_registration_enabled as DbBool),
        passkeysEnabled: fromDbBool(row.passkeys_enabled as DbBool),
    };
}
