import { randomBytes } from 'node:crypto';
import type { DbBool } from '../../db/schema.js';
import { fromDbBool, toDbBool, type DialectName } from '../../db/values.js';
import type { PasswordHasher } from '../../secrets/passwords.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { Db, Tx } from '../resource/context.js';
import type { Columns } from '../../storage/resource/table.js';

/** Storage modes of a client secret (spec "Other resource fields", beta.65 items 2 and 4). */
export const SECRET_MODES = ['plain', 'hashed', 'encrypted'] as const;
export type SecretMode = (typeof SECRET_MODES)[number];

/**
 * Secrets given by callers: up to 256 characters, so that the AES-256-GCM envelope of the longest
 * one (about 84 + 4/3·256 characters) fits the 512-character column (spec Limits). A generated
 * secret is 43 characters.
 */
export const SECRET_MAX_LENGTH = 256;

/** The bytes of a generated secret: 256 bits, the strength of the authorization codes (spec rule 12). */
const GENERATED_SECRET_BYTES = 32;

export function generateSecret(): string {
    return randomBytes(GENERATED_SECRET_BYTES).toString('base64url');
}

/** The storage flags of a client row. */
interface SecretFlags {
    secret_hashed: DbBool;
    secret_encrypted: DbBool;
}

export function modeOfRow(row: SecretFlags): SecretMode {
    if (fromDbBool(row.secret_hashed)) return 'hashed';
    if (fromDbBool(row.secret_encrypted)) return 'encrypted';
    return 'plain';
}

/**
 * The mode of a rotation that names none (spec States): hashed and encrypted storage are kept; a
 * plaintext moves to encrypted. A plaintext written by an earlier release and one written in plain
 * mode now are the same row, so both move; a caller who wants plain again says `mode: 'plain'`.
 */
export function defaultRotationMode(row: SecretFlags): SecretMode {
    const mode = modeOfRow(row);
    return mode === 'plain' ? 'encrypted' : mode;
}

export function modeOfFlags(hashed: unknown, encrypted: unknown): SecretMode {
    if (hashed === true) return 'hashed';
    if (encrypted === true) return 'encrypted';
    return 'plain';
}

export function flagColumns(dialect: DialectName, mode: SecretMode): Columns {
    return { secret_hashed: toDbBool(dialect, mode === 'hashed'), secret_encrypted: toDbBool(dialect, mode === 'encrypted') };
}

export interface SecretStore {
    /** the column value for a plaintext in a mode, inside the writing transaction */
    store(tx: Tx, realmId: string, mode: SecretMode, plaintext: string): Promise<string>;
    /** the value a reader allowed to see the secret gets: encrypted ones decrypted, others as stored */
    reveal(db: Db, stored: string | null): Promise<string | null>;
}

export function createSecretStore(deps: { passwords: PasswordHasher; secrets: SecretBox }): SecretStore {
    return {
        async store(tx, realmId, mode, plaintext) {
            // spec Errors "client secret hash-like input": hashed like any other value, a bcrypt one
            // included, or an API caller could install a precomputed hash (spec Errors "client secret hash-like input"); only a
            // provisioning file keeps a bcrypt value verbatim (spec Versioning beta.65 item 4)
            if (mode === 'hashed') return deps.passwords.hash(plaintext);
            // AES-256-GCM under the realm's encryption key (spec Authentication rule 15)
            if (mode === 'encrypted') return deps.secrets.encrypt(tx, realmId, plaintext);
            return plaintext;
        },
        async reveal(db, stored) {
            if (stored === null || !deps.secrets.isEnvelope(stored)) return stored;
            try {
                return await deps.secrets.decrypt(db, stored);
            } catch {
                // spec States: with the realm key disabled the secret cannot be recovered; the read
                // still answers (a list must not fail for one row), with no value to show
                return null;
            }
        },
    };
}
