import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { Database, DbDate } from '../db/schema.js';
import { fromDbDate, toDbDate, type DialectName } from '../db/values.js';

/**
 * auth_keys: per-realm signing keys (use `sig`) beside the realm encryption keys (use `enc`), and
 * auth_key_tombstones, the public half of deleted signing keys. Private material is read only by
 * the functions that say so.
 */

/** A signing key as published: its id (the kid), algorithm, status and public JWK (JSON text). */
export interface SigningKeyRecord {
    id: string;
    algorithm: string;
    status: string;
    publicKey: string | null;
    /** the row's creation stamp (ms): with the kid and realm, it names this row's material alone */
    createdAt: number;
}

/** A new auth_keys row; `privateKey` is already wrapped (secrets/secret-box.ts). */
export interface NewKeyRecord {
    id: string;
    type: string;
    use: 'sig' | 'enc';
    algorithm: string;
    status: string;
    priority: number;
    publicKey: string | null;
    privateKey: string;
    realmId: string;
}

const SIGNING_COLUMNS = ['id', 'algorithm', 'status', 'public_key', 'created_at'] as const;

function signingKeyOf(row: { id: string; algorithm: string; status: string; public_key: string | null; created_at: DbDate }): SigningKeyRecord {
    return { id: row.id, algorithm: row.algorithm, status: row.status, publicKey: row.public_key, createdAt: fromDbDate(row.created_at).getTime() };
}

export async function insertKey(db: Kysely<Database>, dialect: DialectName, key: NewKeyRecord): Promise<void> {
    const now = toDbDate(dialect, new Date());
    await db.insertInto('auth_keys').values({
        id: key.id, type: key.type, use: key.use, algorithm: key.algorithm, status: key.status, priority: key.priority,
        public_key: key.publicKey, private_key: key.privateKey, realm_id: key.realmId, created_at: now, updated_at: now,
    }).execute();
}

/** The realm's active signing key (of one algorithm): newest first among equal priorities, so a freshly generated key takes over (rotation). */
const activeSigningKeyQuery = (byAlgorithm: boolean) => prepareQuery((db, param) => {
    let query = db.selectFrom('auth_keys').select(SIGNING_COLUMNS)
        .where('realm_id', '=', param(0)).where('use', '=', 'sig').where('status', '=', 'active');
    if (byAlgorithm) query = query.where('algorithm', '=', param(1));
    return query.orderBy('priority', 'desc').orderBy('created_at', 'desc').orderBy('id').limit(1);
});
const ACTIVE_SIGNING_KEY = activeSigningKeyQuery(false);
const ACTIVE_SIGNING_KEY_OF_ALGORITHM = activeSigningKeyQuery(true);

/** The key new tokens of the realm are signed with (read on every issue: prepared). */
export async function findActiveSigningKey(db: Kysely<Database>, realmId: string, algorithm?: string): Promise<SigningKeyRecord | undefined> {
    const row = algorithm ? await ACTIVE_SIGNING_KEY_OF_ALGORITHM.first(db, [realmId, algorithm]) : await ACTIVE_SIGNING_KEY.first(db, [realmId]);
    return row && signingKeyOf(row);
}

/** Any active signing key of the realm (of `algorithm`, when given); its id, or undefined. */
export async function findAnyActiveSigningKeyId(db: Kysely<Database>, realmId: string, algorithm?: string): Promise<string | undefined> {
    let query = db.selectFrom('auth_keys').select('id').where('realm_id', '=', realmId).where('use', '=', 'sig').where('status', '=', 'active');
    if (algorithm) query = query.where('algorithm', '=', algorithm);
    return (await query.executeTakeFirst())?.id;
}

/**
 * The realms without an active signing key of `algorithm`: at boot, the realms that predate a key
 * every realm now gets with its creation. One anti-join, normally empty — never a scan per realm.
 */
export async function listRealmsWithoutActiveSigningKey(db: Kysely<Database>, algorithm: string): Promise<string[]> {
    const rows = await db.selectFrom('auth_realms').select('auth_realms.id')
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('auth_keys').select('auth_keys.id')
            .whereRef('auth_keys.realm_id', '=', 'auth_realms.id').where('auth_keys.use', '=', 'sig')
            .where('auth_keys.status', '=', 'active').where('auth_keys.algorithm', '=', algorithm))))
        .orderBy('auth_realms.id').execute();
    return rows.map((row) => row.id);
}

/** The lowest priority among the realm's signing keys (0 without any). */
export async function lowestSigningKeyPriority(db: Kysely<Database>, realmId: string): Promise<number> {
    const row = await db.selectFrom('auth_keys').select((eb) => eb.fn.min('priority').as('lowest'))
        .where('realm_id', '=', realmId).where('use', '=', 'sig').executeTakeFirst();
    return Number(row?.lowest ?? 0);
}

/** The realm's signing keys that are not disabled, in signing order (passive keys stay published, spec States). */
export async function listPublishedSigningKeys(db: Kysely<Database>, realmId: string): Promise<SigningKeyRecord[]> {
    const rows = await db.selectFrom('auth_keys').select(SIGNING_COLUMNS)
        .where('realm_id', '=', realmId).where('use', '=', 'sig').where('status', '!=', 'disabled')
        .orderBy('priority', 'desc').orderBy('created_at', 'desc').orderBy('id').execute();
    return rows.map(signingKeyOf);
}

/** One signing key of the realm that is not disabled; undefined otherwise. */
export async function findPublishedSigningKey(db: Kysely<Database>, realmId: string, kid: string): Promise<SigningKeyRecord | undefined> {
    const row = await db.selectFrom('auth_keys').select(SIGNING_COLUMNS)
        .where('realm_id', '=', realmId).where('use', '=', 'sig').where('id', '=', kid).where('status', '!=', 'disabled').executeTakeFirst();
    return row && signingKeyOf(row);
}

/**
 * The stored (wrapped) private half of a realm's signing key that is not disabled; null when
 * unavailable. Keyed by realm and kid together: a kid of another realm never selects material here
 * (spec Authentication rule 2: only a key of the realm a token names may sign for it).
 */
export async function findSigningPrivateKey(db: Kysely<Database>, realmId: string, kid: string): Promise<string | null> {
    const row = await db.selectFrom('auth_keys').select(['private_key']).where('id', '=', kid).where('realm_id', '=', realmId)
        .where('use', '=', 'sig').where('status', '!=', 'disabled').executeTakeFirst();
    return row?.private_key ?? null;
}

/**
 * What never changes in one signing key row: its realm, algorithm, public JWK (JSON text) and
 * creation stamp. A kid names one row at a time, never one key forever: the stamp tells rows apart.
 */
export async function findSigningKeyMaterial(db: Kysely<Database>, kid: string): Promise<{ realmId: string; algorithm: string; publicKey: string | null; createdAt: number } | undefined> {
    const row = await db.selectFrom('auth_keys').select(['realm_id', 'algorithm', 'public_key', 'created_at'])
        .where('id', '=', kid).where('use', '=', 'sig').executeTakeFirst();
    return row && { realmId: row.realm_id, algorithm: row.algorithm, publicKey: row.public_key, createdAt: fromDbDate(row.created_at).getTime() };
}

/** A signing key's status mark, realm and creation stamp; undefined when the key does not exist (deleted). */
export async function findSigningKeyStatus(db: Kysely<Database>, kid: string): Promise<{ status: string; realmId: string; createdAt: number } | undefined> {
    const row = await db.selectFrom('auth_keys').select(['status', 'realm_id', 'created_at']).where('id', '=', kid).where('use', '=', 'sig').executeTakeFirst();
    return row && { status: row.status, realmId: row.realm_id, createdAt: fromDbDate(row.created_at).getTime() };
}

/** Whether a key id was ever used by a deleted signing key still remembered (its tombstone). */
export async function keyIdIsBuried(db: Kysely<Database>, id: string): Promise<boolean> {
    return (await db.selectFrom('auth_key_tombstones').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The public half of a deleted signing key (migration 0002); undefined when there is none. */
export async function findKeyTombstone(db: Kysely<Database>, kid: string): Promise<{ realmId: string; algorithm: string; publicKey: string } | undefined> {
    const row = await db.selectFrom('auth_key_tombstones').select(['realm_id', 'algorithm', 'public_key']).where('id', '=', kid).executeTakeFirst();
    return row && { realmId: row.realm_id, algorithm: row.algorithm, publicKey: row.public_key };
}

/** The realm's active encryption key id (highest priority); undefined when it has none. */
export async function findActiveEncryptionKeyId(db: Kysely<Database>, realmId: string): Promise<string | undefined> {
    const row = await db.selectFrom('auth_keys').select('id')
        .where('realm_id', '=', realmId).where('use', '=', 'enc').where('status', '=', 'active')
        .orderBy('priority', 'desc').executeTakeFirst();
    return row?.id;
}

/** Read on every encrypted-secret check (secrets/secret-box.ts): prepared. */
const KEY_SECRET = prepareQuery((db, param) => db.selectFrom('auth_keys').select(['private_key', 'status']).where('id', '=', param(0)));

/** Any key's stored private material and status; undefined when the key does not exist. */
export async function findKeySecret(db: Kysely<Database>, id: string): Promise<{ privateKey: string | null; status: string } | undefined> {
    const row = await KEY_SECRET.first(db, [id]);
    return row && { privateKey: row.private_key, status: row.status };
}

/** Keys whose private material is stored without the `prefix` envelope (not yet wrapped). */
export async function listKeysNotWrapped(db: Kysely<Database>, prefix: string): Promise<{ id: string; privateKey: string }[]> {
    const rows = await db.selectFrom('auth_keys').select(['id', 'private_key'])
        .where('private_key', 'is not', null).where('private_key', 'not like', `${prefix}%`).execute();
    return rows.map((row) => ({ id: row.id, privateKey: row.private_key! }));
}

/** Replaces a key's private material, unless another writer changed it since it was read. */
export async function replaceKeyPrivateMaterial(db: Kysely<Database>, id: string, previous: string, next: string): Promise<void> {
    await db.updateTable('auth_keys').set({ private_key: next }).where('id', '=', id).where('private_key', '=', previous).execute();
}
