import type { Config } from './schema.js';

/**
 * The warning of a production boot without SECRETS_ENCRYPTION_KEY (spec Authentication rule 15:
 * the realm encryption keys are wrapped at rest only when it is set). Without it, whoever reads the
 * database or a backup of it can decrypt every secret stored under those keys. The message names the
 * setting and how to make a key, never a value. Null when there is nothing to warn about.
 */
export function missingEncryptionKeyWarning(config: Pick<Config, 'env' | 'secretsEncryptionKey'>): string | null {
    if (config.env !== 'production' || config.secretsEncryptionKey !== undefined) return null;
    return 'SECRETS_ENCRYPTION_KEY is not set in production: the realm encryption keys are stored unwrapped, so anyone who reads '
        + 'the database or a backup of it can decrypt the secrets stored under them. Set SECRETS_ENCRYPTION_KEY to 32 random bytes '
        + '(base64 or 64 hex characters, e.g. `openssl rand -base64 32`); the keys already stored are wrapped at the next boot.';
}
