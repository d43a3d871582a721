import { createPrivateKey, randomBytes, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, KeyTable } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import type { BoundedCache } from '../cache/bounded-cache.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { afterCommit } from '../storage/write-transaction.js';
import {
    findActiveSigningKey, findAnyActiveSigningKeyId, findPublishedSigningKey, findSigningPrivateKey, insertKey, listPublishedSigningKeys,
    listRealmsWithoutActiveSigningKey, lowestSigningKeyPriority, type SigningKeyRecord,
} from '../storage/keys.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm, type SigningMaterial } from './material.js';
import { createSpareMaterial } from './spare-material.js';

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
    /** the row's creation stamp (ms): a kid names one row at a time, so caches key on both */
    createdAt: number;
}

type KeyRow = Pick<KeyTable, 'id' | 'algorithm' | 'public_key'>;

/** The published JWK of a signing key row; the kid and alg always follow the row. */
export function publicJwkOf(row: KeyRow): PublicJwk {
    return jwkOf({ id: row.id, algorithm: row.algorithm, publicKey: row.public_key });
}

function jwkOf(key: Pick<SigningKeyRecord, 'id' | 'algorithm' | 'publicKey'>): PublicJwk {
    const stored = JSON.parse(key.publicKey ?? '{}') as JsonWebKey;
    return { ...stored, kid: key.id, alg: key.algorithm, use: 'sig' };
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
    /**
     * an active key of every signing algorithm the realm's discovery document advertises (ES256 for
     * its access tokens, RS256 below it for ID tokens), so its JWKS holds each key before that key
     * signs anything: a relying party that fetched the JWKS first verifies every ID token (OIDC
     * Core §10.1.1). With the realm's creation, in its transaction.
     */
    ensureRealmSigningKeys(db: Kysely<Database>, realmId: string): Promise<void>;
    /** at boot: `ensureRealmSigningKeys` for every realm that lacks one of them (realms that predate it) */
    ensureEveryRealmSigningKeys(db: Kysely<Database>): Promise<void>;
    /** the key new tokens are signed with: the highest-priority active signing key (of `algorithm`, when given) */
    activeSigningKey(db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm): Promise<ActiveSigningKey | undefined>;
    /** RFC 7517 §5 JWK Set of the realm: every signing key that is not disabled (active and passive) */
    publicJwks(db: Kysely<Database>, realmId: string): Promise<{ keys: PublicJwk[] }>;
    /** one published key of the realm; undefined when unknown, not a signing key, or disabled */
    publicJwk(db: Kysely<Database>, realmId: string, kid: string): Promise<PublicJwk | undefined>;
    /**
     * the private half of one of the realm's signing keys that is not disabled, for signing; it
     * never leaves the server. Undefined for a kid of another realm.
     */
    privateKeyFor(db: Kysely<Database>, realmId: string, kid: string): Promise<KeyObject | undefined>;
}

/** The active-key cache's key: the realm and the algorithm asked for (`*`: any, the realm's access-token key). */
const activeKeyCacheKey = (realmId: string, algorithm?: SigningAlgorithm): string => `${realmId}/${algorithm ?? '*'}`;

/**
 * Per-realm signing keys in auth_keys (use 'sig'), next to the realm encryption keys (use 'enc').
 * With `activeKeys`, the active signing key of a realm (and algorithm) is remembered (fewer
 * database round trips on the hot paths): every issuance reads it (a code redemption twice). Only what exists is remembered; every
 * write to auth_keys through the API or a realm change empties it on every replica through the bus
 * before the write answers (wire.ts), and a key created here empties its realm's entries at once.
 * Verifying never trusts it: a token's key status is read with its session (tokens/subject-check.ts).
 */
export function createKeyStore(dialect: DialectName, secrets: SecretBox, activeKeys?: BoundedCache<ActiveSigningKey>): KeyStore {
    // an RSA pair generated ahead of the realm that will need it (spare-material.ts)
    const material = createSpareMaterial();
    const createSigningKey = async (db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm, priority = 0): Promise<string> => {
        const id = randomUUID();
        const columns = signingKeyColumns(secrets, await material.take(algorithm), id);
        await insertKey(db, dialect, {
            id, type: columns.type, use: 'sig', algorithm: columns.algorithm, status: 'active', priority,
            publicKey: columns.public_key, privateKey: columns.private_key, realmId,
        });
        // a new key may take over the realm: what was remembered of its active keys is void from here
        activeKeys?.invalidateWhere((key) => key.startsWith(`${realmId}/`));
        return id;
    };

    const ensureSigningKey = async (db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm): Promise<string> => {
        const existing = await findAnyActiveSigningKeyId(db, realmId, algorithm);
        if (existing) return existing;
        if (!algorithm) return createSigningKey(db, realmId);
        const lowest = await lowestSigningKeyPriority(db, realmId);
        return createSigningKey(db, realmId, algorithm, Math.min(0, lowest) - 1);
    };
    const ensureRealmSigningKeys = async (db: Kysely<Database>, realmId: string): Promise<void> => {
        // the access-token key first (ES256 at the top), then each other algorithm below every key
        await ensureSigningKey(db, realmId);
        for (const algorithm of SIGNING_ALGORITHMS) await ensureSigningKey(db, realmId, algorithm);
    };

    return {
        createSigningKey: (db, realmId, algorithm) => createSigningKey(db, realmId, algorithm),
        ensureSigningKey,
        ensureRealmSigningKeys,
        async ensureEveryRealmSigningKeys(db) {
            const lacking = new Set<string>();
            for (const algorithm of SIGNING_ALGORITHMS) for (const id of await listRealmsWithoutActiveSigningKey(db, algorithm)) lacking.add(id);
            for (const realmId of lacking) await ensureRealmSigningKeys(db, realmId);
        },
        async activeSigningKey(db, realmId, algorithm) {
            const read = async () => {
                const key = await findActiveSigningKey(db, realmId, algorithm);
                return key ? { kid: key.id, algorithm: key.algorithm as SigningAlgorithm, jwk: jwkOf(key), createdAt: key.createdAt } : undefined;
            };
            if (!activeKeys) return read();
            const cacheKey = activeKeyCacheKey(realmId, algorithm);
            if (!db.isTransaction) return activeKeys.through(cacheKey, read);
            // inside a transaction (a code redemption issues in one) a remembered key serves; what
            // the transaction reads may be uncommitted, so it is remembered only once committed —
            // never after a rollback, nor when an invalidation came in between (the generation)
            const remembered = activeKeys.get(cacheKey);
            if (remembered) return remembered;
            const generation = activeKeys.mark();
            const key = await read();
            if (key) afterCommit(db, () => activeKeys.set(cacheKey, key, generation));
            return key;
        },
        async publicJwks(db, realmId) {
            // passive keys stay published so tokens they signed keep verifying (spec States)
            return { keys: (await listPublishedSigningKeys(db, realmId)).map(jwkOf) };
        },
        async publicJwk(db, realmId, kid) {
            const key = await findPublishedSigningKey(db, realmId, kid);
            return key ? jwkOf(key) : undefined;
        },
        async privateKeyFor(db, realmId, kid) {
            const stored = await findSigningPrivateKey(db, realmId, kid);
            if (!stored) return undefined;
            return createPrivateKey({ key: secrets.unwrapKey(stored).toString('utf8'), format: 'pem' });
        },
    };
}
