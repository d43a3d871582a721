import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { PasswordHasher } from './passwords.js';
import { secretsEqual, type SecretBox } from './secret-box.js';

/** Whether a presented secret is a client's, whatever way the client's secret is stored. */
export interface ClientSecretVerifier {
    verify(client: StoredClientSecret, presented: string): Promise<boolean>;
}

/** A client's secret as stored: plaintext, an `enc:` envelope, or (secretHashed) a bcrypt hash. */
export interface StoredClientSecret {
    secret: string | null;
    secretHashed: boolean;
}

/** Verify a presented client secret in the client's storage mode (plain, hashed or encrypted). */
export function createClientSecretVerifier(deps: { passwords: PasswordHasher; secrets: SecretBox; db?: Kysely<Database> }): ClientSecretVerifier & { bind(db: Kysely<Database>): void } {
    let db = deps.db;
    return {
        bind(value) {
            db = value;
        },
        async verify(client, presented) {
            const stored = client.secret;
            if (!stored) return false;
            if (client.secretHashed) return deps.passwords.verify(presented, stored);
            if (deps.secrets.isEnvelope(stored)) {
                if (!db) return false;
                try {
                    return await deps.secrets.matches(db, stored, presented);
                } catch {
                    return false;
                }
            }
            return secretsEqual(stored, presented);
        },
    };
}
