import { createPrivateKey, randomBytes, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { Database, KeyTable } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { generateSigningMaterial, type SigningAlgorithm, type SigningMaterial } from './material.js';

export const KEY_USES = ['sig', 'enc'] as const;
export const KEY_STATUSES = ['active', 'passive', 'disabled'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];
/** The realm encryption key's algorithm (secrets/secret-box.ts seals with AES-256-GCM). */
export const ENCRYPTION_ALGORITHM = 'A256GCM';

/** A published public key (RFC 7517 §4): kid is the auth_keys row id. */
export type PublicJwk = JsonWebKey & { kid: string; alg: string; use: 'sig' };

export interface ActiveSigningKey {
    kid: string;
    algorithm: SigningAlgorithm;
    jwk: PublicJwk;
}

type KeyRow = Pick<KeyTable, 'id' | 'algorithm' | 'public_key'>;

/** The published JWK of a signing key row; the kid and alg always follow the row. */
export function publicJwkOf(row: KeyRow): PublicJwk {
    const stored = JSON.parse(row.public_key ?? '{}') as JsonWebKey;
    return { ...stored, kid: row.id, alg: row.algorithm, use: 'sig' };
}

/** The auth_keys columns of a signing key (private half wrapped like the realm encryption keys). */
export function signingKeyColumns(secrets: SecretBox, material: SigningMaterial, kid?: string) {
    return {
        type: material.type,
        use: 'sig',
        algorithm: material.algorithm,
        public_key: JSON.stringify({ ...material.publicJwk, ...(kid ? { kid } : {}) }),
        private_key: secrets.wrapKey(Buffer.from(material.privatePem, 'utf8')),
    };
}

/** The auth_keys columns of a new realm encryption key: 256 random bits, wrapped at rest (spec Authentication rule 15). */
export function encryptionKeyColumns(secrets: SecretBox) {
    return { type: 'oct', use: 'enc', algorithm: ENCRYPTION_ALGORITHM, public_key: null, private_key: secrets.wrapKey(randomBytes(32)) };
}

export interface KeyStore {
    /** a new signing key of the realm (ES256 unless said otherwise); returns its kid */
    createSigningKey(db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm): Promise<string>;
    /**
     * the realm's active signing key id, creating an ES256 key when it has none (realm creation,
     * bootstrap); with `algorithm`, an active key of that algorithm, created on demand below every
     * existing key's priority so it never takes over the realm's access tokens (the RS256 ID-token key)
     */
    ensureSigningKey(db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm): Promise<string>;
    /** the key new tokens are signed with: the highest-priority active signing key (of `algorithm`, when given) */
    activeSigningKey(db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm): Promise<ActiveSigningKey | undefined>;
    /** RFC 7517 §5 JWK Set of the realm: every signing key that is not disabled (active and passive) */
    publicJwks(db: Kysely<Database>, realmId: string): Promise<{ keys: PublicJwk[] }>;
    /** one published key of the realm; undefined when unknown, not a signing key, or disabled */
    publicJwk(db: Kysely<Database>, realmId: string, kid: string): Promise<PublicJwk | undefined>;
    /** the private half of a signing key that is not disabled, for signing; it never leaves the server */
    privateKeyFor(db: Kysely<Database>, kid: string): Promise<KeyObject | undefined>;
}

/** The realm's active signing key (of one algorithm): newest first among equal priorities, so a freshly generated key takes over (rotation). */
const activeSigningKeyQuery = (byAlgorithm: boolean) => prepareQuery((db, param) => {
    let query = db.selectFrom('auth_keys').select(['id', 'algorithm', 'status', 'public_key'])
        .where('realm_id', '=', param(0)).where('use', '=', 'sig').where('status', '=', 'active');
    if (byAlgorithm) query = query.where('algorithm', '=', param(1));
    return query.orderBy('priority', 'desc').orderBy('created_at', 'desc').orderBy('id').limit(1);
});
const ACTIVE_SIGNING_KEY = activeSigningKeyQuery(false);
const ACTIVE_SIGNING_KEY_OF_ALGORITHM = activeSigningKeyQuery(true);

/** Per-realm signing keys in auth_keys (use 'sig'), next to the realm encryption keys (use 'enc'). */
export function createKeyStore(dialect: DialectName, secrets: SecretBox): KeyStore {
    const signingKeys = (db: Kysely<Database>, realmId: string) => db.selectFrom('auth_keys')
        .select(['id', 'algorithm', 'status', 'public_key'])
        .where('realm_id', '=', realmId).where('use', '=', 'sig');

    const createSigningKey = async (db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm, priority = 0): Promise<string> => {
        const id = randomUUID();
        const now = toDbDate(dialect, new Date());
        await db.insertInto('auth_keys').values({
            id, ...signingKeyColumns(secrets, await generateSigningMaterial(algorithm), id),
            status: 'active', priority, realm_id: realmId, created_at: now, updated_at: now,
        }).execute();
        return id;
    };

    return {
        createSigningKey: (db, realmId, algorithm) => createSigningKey(db, realmId, algorithm),
        async ensureSigningKey(db, realmId, algorithm) {
            let query = signingKeys(db, realmId).where('status', '=', 'active');
            if (algorithm) query = query.where('algorithm', '=', algorithm);
            const existing = await query.executeTakeFirst();
            if (existing) return existing.id;
            if (!algorithm) return createSigningKey(db, realmId);
            const lowest = await db.selectFrom('auth_keys').select((eb) => eb.fn.min('priority').as('lowest'))
                .where('realm_id', '=', realmId).where('use', '=', 'sig').executeTakeFirst();
            return createSigningKey(db, realmId, algorithm, Math.min(0, Number(lowest?.lowest ?? 0)) - 1);
        },
        async activeSigningKey(db, realmId, algorithm) {
            const row = algorithm ? await ACTIVE_SIGNING_KEY_OF_ALGORITHM.first(db, [realmId, algorithm]) : await ACTIVE_SIGNING_KEY.first(db, [realmId]);
            return row ? { kid: row.id, algorithm: row.algorithm as SigningAlgorithm, jwk: publicJwkOf(row) } : undefined;
        },
        async publicJwks(db, realmId) {
            // passive keys stay published so tokens they signed keep verifying (spec States)
            const rows = await signingKeys(db, realmId).where('status', '!=', 'disabled')
                .orderBy('priority', 'desc').orderBy('created_at', 'desc').orderBy('id').execute();
            return { keys: rows.map(publicJwkOf) };
        },
        async publicJwk(db, realmId, kid) {
            const row = await signingKeys(db, realmId).where('id', '=', kid).where('status', '!=', 'disabled').executeTakeFirst();
            return row ? publicJwkOf(row) : undefined;
        },
        async privateKeyFor(db, kid) {
            const row = await db.selectFrom('auth_keys').select(['private_key']).where('id', '=', kid)
                .where('use', '=', 'sig').where('status', '!=', 'disabled').executeTakeFirst();
            if (!row?.private_key) return undefined;
            return createPrivateKey({ key: secrets.unwrapKey(row.private_key).toString('utf8'), format: 'pem' });
        },
    };
}
