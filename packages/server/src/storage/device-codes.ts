import type { Kysely } from 'kysely';
import type { Database, DeviceCodeTable } from '../db/schema.js';
import { fromDbDate, fromDbDateOrNull, toDbDate, type DialectName } from '../db/values.js';
import type { PageRealmRow } from './authorize-lookups.js';

/** A device authorization request as the flow reads it (RFC 8628; migration 0004). */
export interface DeviceCode {
    id: string;
    realmId: string;
    clientId: string;
    scope: string;
    status: DeviceCodeTable['status'];
    userId: string | null;
    sessionId: string | null;
    interval: number;
    polledAt: Date | null;
    expiresAt: Date;
    consumedAt: Date | null;
}

export interface NewDeviceCode {
    id: string;
    deviceCodeDigest: string;
    userCodeDigest: string;
    realmId: string;
    clientId: string;
    scope: string;
    interval: number;
    expiresAt: Date;
}

const COLUMNS = [
    'auth_device_codes.id', 'auth_device_codes.realm_id', 'auth_device_codes.client_id', 'auth_device_codes.scope',
    'auth_device_codes.status', 'auth_device_codes.user_id', 'auth_device_codes.session_id', 'auth_device_codes.poll_interval',
    'auth_device_codes.polled_at', 'auth_device_codes.expires_at', 'auth_device_codes.consumed_at',
] as const;

type Row = Pick<DeviceCodeTable, 'id' | 'realm_id' | 'client_id' | 'scope' | 'status' | 'user_id' | 'session_id' | 'poll_interval' | 'polled_at' | 'expires_at' | 'consumed_at'>;

function deviceCodeOf(row: Row): DeviceCode {
    return {
        id: row.id, realmId: row.realm_id, clientId: row.client_id, scope: row.scope, status: row.status,
        userId: row.user_id, sessionId: row.session_id, interval: Number(row.poll_interval), polledAt: fromDbDateOrNull(row.polled_at),
        expiresAt: fromDbDate(row.expires_at), consumedAt: fromDbDateOrNull(row.consumed_at),
    };
}

export async function insertDeviceCode(db: Kysely<Database>, dialect: DialectName, code: NewDeviceCode): Promise<void> {
    await db.insertInto('auth_device_codes').values({
        id: code.id, device_code_digest: code.deviceCodeDigest, user_code_digest: code.userCodeDigest, realm_id: code.realmId,
        client_id: code.clientId, scope: code.scope, status: 'pending', user_id: null, session_id: null, poll_interval: code.interval,
        polled_at: null, expires_at: toDbDate(dialect, code.expiresAt), consumed_at: null, created_at: toDbDate(dialect, new Date()),
    }).execute();
}

/** The request a device code names (the poll). */
export async function findByDeviceCode(db: Kysely<Database>, digest: string): Promise<DeviceCode | undefined> {
    const row = await db.selectFrom('auth_device_codes').select(COLUMNS).where('device_code_digest', '=', digest).executeTakeFirst();
    return row && deviceCodeOf(row);
}

/** A pending request as the user is shown it: the client and the realm it signs in to. */
export type PendingDeviceCode = DeviceCode & {
    client: { id: string; name: string; displayName: string | null; accessPolicyId: string | null };
    realm: PageRealmRow;
};

/**
 * A pending, unexpired request by its user code: of one realm, or (null) of any — the digest is
 * unique across realms, so the `/device` page learns from the code which realm to sign in to.
 */
export async function findPendingByUserCode(
    db: Kysely<Database>, dialect: DialectName, realmId: string | null, digest: string,
): Promise<PendingDeviceCode | undefined> {
    let query = db.selectFrom('auth_device_codes')
        .innerJoin('auth_clients', 'auth_clients.id', 'auth_device_codes.client_id')
        .innerJoin('auth_realms', 'auth_realms.id', 'auth_device_codes.realm_id')
        .select([...COLUMNS, 'auth_clients.name as client_name', 'auth_clients.display_name as client_display_name',
            'auth_clients.access_policy_id as client_access_policy_id', 'auth_realms.name as realm_name', 'auth_realms.display_name as realm_display_name',
            'auth_realms.logo_url as realm_logo_url', 'auth_realms.primary_color as realm_primary_color'])
        .where('auth_device_codes.user_code_digest', '=', digest)
        .where('auth_device_codes.status', '=', 'pending')
        .where('auth_device_codes.expires_at', '>', toDbDate(dialect, new Date()));
    if (realmId !== null) query = query.where('auth_device_codes.realm_id', '=', realmId);
    const row = await query.executeTakeFirst();
    return row && {
        ...deviceCodeOf(row),
        client: { id: row.client_id, name: row.client_name, displayName: row.client_display_name, accessPolicyId: row.client_access_policy_id },
        realm: { id: row.realm_id, name: row.realm_name, displayName: row.realm_display_name, logoUrl: row.realm_logo_url, primaryColor: row.realm_primary_color },
    };
}

/** Records the user's decision on a still pending, unexpired request; false when it no longer is. */
export async function decideDeviceCode(
    db: Kysely<Database>, dialect: DialectName, id: string, decision: { status: 'approved' | 'denied'; userId: string; sessionId: string | null },
): Promise<boolean> {
    const result = await db.updateTable('auth_device_codes')
        .set({ status: decision.status, user_id: decision.userId, session_id: decision.sessionId })
        .where('id', '=', id).where('status', '=', 'pending').where('expires_at', '>', toDbDate(dialect, new Date()))
        .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
}

/** Records a poll's time and the interval the next one must respect. */
export async function recordDevicePoll(db: Kysely<Database>, dialect: DialectName, id: string, at: Date, interval: number): Promise<void> {
    await db.updateTable('auth_device_codes').set({ polled_at: toDbDate(dialect, at), poll_interval: interval }).where('id', '=', id).execute();
}

/** Marks an approved request as redeemed, once: false when another poll already did. */
export async function consumeDeviceCode(db: Kysely<Database>, dialect: DialectName, id: string): Promise<boolean> {
    const result = await db.updateTable('auth_device_codes').set({ consumed_at: toDbDate(dialect, new Date()) })
        .where('id', '=', id).where('status', '=', 'approved').where('consumed_at', 'is', null)
        .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
}
