import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import {
    findActiveEncryptionKeyId, findKeySecret, insertKey, listKeysNotWrapped, replaceKeyPrivateMaterial,
} from '../storage/keys.js';
import { createRememberedVerifications } from './remembered.js';

const ENVELOPE = 'enc:v1';
const WRAPPED = 'wrapped:v1';

class SecretUnavailableError extends Error {
    readonly code = 'secret_unavailable';
}

function seal(key: Buffer, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join(':');
}

function open(key: Buffer, sealed: string): string {
    const [iv, tag, body] = sealed.split(':').map((part) => Buffer.from(part, 'base64url'));
    if (!iv || !tag || !body) throw new SecretUnavailableError('The sealed value is malformed.');
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}

/** Decode SECRETS_ENCRYPTION_KEY (64 hex characters or base64 of 32 bytes). */
function masterKeyOf(value: string | null): Buffer | null {
    if (!value) return null;
    const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
    if (key.length !== 32) throw new Error('SECRETS_ENCRYPTION_KEY must be 32 bytes (64 hex characters or base64).');
    return key;
}

export interface SecretBox {
    /** AES-256-GCM under the realm's active encryption key (created on first use) */
    encrypt(db: Kysely<Database>, realmId: string, plaintext: string): Promise<string>;
    /** throws SecretUnavailableError when the key is disabled, deleted or the value corrupt */
    decrypt(db: Kysely<Database>, envelope: string): Promise<string>;
    /**
     * Whether `presented` is the secret sealed in `envelope`, compared in constant time; throws
     * SecretUnavailableError like decrypt. The key's state is read on every call (another replica
     * may have disabled it); a success is remembered, so a repeated one skips unwrapping and decryption.
     */
    matches(db: Kysely<Database>, envelope: string, presented: string): Promise<boolean>;
    isEnvelope(value: string): boolean;
    /** the realm's encryption key id, creating it when missing (realm creation, bootstrap) */
    ensureRealmKey(db: Kysely<Database>, realmId: string): Promise<string>;
    /** private key material as stored in auth_keys.private_key: wrapped under SECRETS_ENCRYPTION_KEY when set */
    wrapKey(raw: Buffer): string;
    /** the raw material of a stored auth_keys.private_key; throws SecretUnavailableError when it cannot be unwrapped */
    unwrapKey(stored: string): Buffer;
    /**
     * Wrap every key stored unwrapped, once SECRETS_ENCRYPTION_KEY is set (keys created before the
     * variable existed); returns how many were wrapped. Without the variable it does nothing.
     */
    wrapStoredKeys(db: Kysely<Database>): Promise<number>;
}

/**
 * Encrypted secrets depend on the realm encryption key; the key is wrapped at rest when
 * SECRETS_ENCRYPTION_KEY is set (spec Authentication rule 15).
 */
export function createSecretBox(handle: DatabaseHandle, masterKeyValue: string | null): SecretBox {
    const masterKey = masterKeyOf(masterKeyValue);
    const remembered = createRememberedVerifications();
    const wrap = (raw: Buffer) => (masterKey ? `${WRAPPED}:${seal(masterKey, raw.toString('base64'))}` : raw.toString('base64'));
    const unwrap = (stored: string): Buffer => {
        if (stored.startsWith(`${WRAPPED}:`)) {
            if (!masterKey) throw new SecretUnavailableError('The realm key is wrapped but SECRETS_ENCRYPTION_KEY is not set.');
            return Buffer.from(open(masterKey, stored.slice(WRAPPED.length + 1)), 'base64');
        }
        return Buffer.from(stored, 'base64');
    };

    const ensureRealmKey = async (db: Kysely<Database>, realmId: string): Promise<string> => {
        const existing = await findActiveEncryptionKeyId(db, realmId);
        if (existing) return existing;
        const id = randomUUID();
        await insertKey(db, handle.dialect, {
            id, type: 'oct', use: 'enc', algorithm: 'A256GCM', status: 'active', priority: 0,
            publicKey: null, privateKey: wrap(randomBytes(32)), realmId,
        });
        return id;
    };

    /** The envelope's key material and sealed value, once the key is known to be usable. */
    const sealedOf = async (db: Kysely<Database>, envelope: string): Promise<{ material: string; value: string }> => {
        const parts = envelope.split(':');
        const keyId = parts[2];
        if (parts.length !== 6 || !keyId) throw new SecretUnavailableError('The secret envelope is malformed.');
        const key = await findKeySecret(db, keyId);
        // spec States: a disabled realm encryption key makes its secrets unrecoverable until enabled again
        if (!key || key.status === 'disabled' || !key.privateKey) throw new SecretUnavailableError('The encryption key is unavailable.');
        return { material: key.privateKey, value: parts.slice(3).join(':') };
    };
    const openEnvelope = ({ material, value }: { material: string; value: string }): string => {
        try {
            return open(unwrap(material), value);
        } catch (error) {
            if (error instanceof SecretUnavailableError) throw error;
            throw new SecretUnavailableError('The secret cannot be decrypted.');
        }
    };

    return {
        ensureRealmKey,
        // signing keys share the at-rest wrapping of encryption keys (spec Authentication rule 15)
        wrapKey: wrap,
        unwrapKey: unwrap,
        async wrapStoredKeys(db) {
            if (!masterKey) return 0;
            const rows = await listKeysNotWrapped(db, `${WRAPPED}:`);
            for (const row of rows) {
                // the material is kept exactly (base64 of the raw key); only its envelope changes
                await replaceKeyPrivateMaterial(db, row.id, row.privateKey, wrap(unwrap(row.privateKey)));
            }
            return rows.length;
        },
        isEnvelope: (value) => value.startsWith(`${ENVELOPE}:`),
        async encrypt(db, realmId, plaintext) {
            const keyId = await ensureRealmKey(db, realmId);
            const key = await findKeySecret(db, keyId);
            if (!key) throw new Error(`encryption key ${keyId} vanished`);
            return `${ENVELOPE}:${keyId}:${seal(unwrap(key.privateKey!), plaintext)}`;
        },
        decrypt: async (db, envelope) => openEnvelope(await sealedOf(db, envelope)),
        async matches(db, envelope, presented) {
            const sealed = await sealedOf(db, envelope);
            if (remembered.has(envelope, presented)) return true;
            const valid = secretsEqual(openEnvelope(sealed), presented);
            if (valid) remembered.add(envelope, presented);
            return valid;
        },
    };
}

/** Compare digests, so neither content nor length leaks through timing. */
export function secretsEqual(a: string, b: string): boolean {
    return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
