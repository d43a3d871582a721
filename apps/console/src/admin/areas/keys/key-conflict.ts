import { isRealmgateError } from '@realmgate/client';

/**
 * Why a key cannot be deleted, in words an administrator can act on. The server answers 409
 * entity_conflict (spec Errors, domains/keys/definition.ts) while secrets are encrypted under an
 * encryption key (client secrets, identity-provider secrets, multi-factor seeds): deleting it
 * would leave them undecryptable. Null when the failure is not such a conflict.
 */
export interface KeyConflict { reason: string; instead: string }

export function keyConflictOf(error: unknown): KeyConflict | null {
    if (!isRealmgateError(error) || error.statusCode !== 409) return null;
    return {
        reason: `This key is still in use: ${error.message}`,
        instead: 'Disable the key instead (reversible: the secrets stop working until it is enabled again), or rotate the client secrets and identity-provider secrets '
            + 'so they are sealed under another key, then delete it. Deleting anyway destroys those secrets and multi-factor enrolments for good.',
    };
}

/** The signing algorithms the server generates (keys/material.ts SIGNING_ALGORITHMS) and the encryption one. */
export const KEY_KINDS = [
    { value: 'sig:ES256', label: 'Signing, ES256 (ECDSA P-256; the default)' },
    { value: 'sig:RS256', label: 'Signing, RS256 (RSA 2048)' },
    { value: 'enc:A256GCM', label: 'Encryption, A256GCM (seals secrets at rest)' },
];
