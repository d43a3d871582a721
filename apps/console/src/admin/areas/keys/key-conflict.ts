import { isRealmgateError } from '@realmgate/client';
import { t } from '../../../shared/i18n/i18n.js';

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
        reason: t('keys.inUse', { reason: error.message }),
        instead: t('keys.instead'),
    };
}

/** The signing algorithms the server generates (keys/material.ts SIGNING_ALGORITHMS) and the encryption one. */
export const keyKinds = () => [
    { value: 'sig:ES256', label: t('keys.es256') },
    { value: 'sig:RS256', label: t('keys.rs256') },
    { value: 'enc:A256GCM', label: t('keys.a256gcm') },
];
