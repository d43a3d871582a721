import type { KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SigningAlgorithm } from '../keys/material.js';
import type { KeyStore } from '../keys/store.js';

/** The key a token is signed with: its kid (the JWS header), algorithm and private key. */
export interface SigningKey {
    kid: string;
    algorithm: SigningAlgorithm;
    key: KeyObject;
    /** the key row's creation stamp (ms): with the kid, which row signed (tokens/subject-check.ts SigningKeyRow) */
    createdAt: number;
}

/** The realm's active signing key (of an algorithm), created on demand: what every issued JWT is signed with. */
export type Signer = (db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm) => Promise<SigningKey>;

export function createSigner(keys: KeyStore): Signer {
    /**
     * Private keys unwrapped and parsed once per key row: keyed by realm, kid and the row's
     * creation stamp, since a kid names one row at a time — a row re-created under an old kid
     * (another realm's, or the same realm's later) never signs with the material it replaced.
     */
    const privateKeys = new Map<string, KeyObject>();

    return async (db, realmId, algorithm) => {
        let active = await keys.activeSigningKey(db, realmId, algorithm);
        if (!active) {
            // a realm whose keys are all disabled or passive (or that never had one) still issues:
            // a fresh key is created on demand; the disabled keys' tokens stay inactive (spec States)
            await keys.ensureSigningKey(db, realmId, algorithm);
            active = await keys.activeSigningKey(db, realmId, algorithm);
            if (!active) throw new Error(`realm ${realmId} has no active signing key`);
        }
        const cacheKey = `${realmId}/${active.kid}/${active.createdAt}`;
        let key = privateKeys.get(cacheKey);
        if (!key) {
            key = await keys.privateKeyFor(db, realmId, active.kid);
            if (!key) throw new Error(`signing key ${active.kid} is unavailable`);
            privateKeys.set(cacheKey, key);
        }
        return { kid: active.kid, algorithm: active.algorithm, key, createdAt: active.createdAt };
    };
}
