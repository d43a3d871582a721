import type { Kysely } from 'kysely';
import type { ClientTable, Database } from '../db/schema.js';
import { fromDbBool } from '../db/values.js';
import type { PasswordHasher } from './passwords.js';
import { secretsEqual, type SecretBox } from './secret-box.js';

/** Whether a presented secret is a client's, whatever way the client's secret is stored. */
export interface ClientSecretVerifier {
    verify(client: ClientTable, presented: string): Promise<boolean>;
}

/** Verify a presented client secret in the client's storage mode (plain, hashed or encrypted). */
export function createClientSecretVerifier(deps: { passwords: PasswordHasher; secrets: SecretBox; db?: Kysely<Database> }): ClientSecretVerifier & { bind(db: Kysely<Database>): void } {
    let db = deps.db;
    return {
        bind(value) {
            db = value;
        },
        async verify(client: ClientTable, presented: string) {
            const stored = client.secret;
            if (!stored) return false;
            if (fromDbBool(client.secret_hashed)) return deps.passwords.verify(presented, stored);
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
