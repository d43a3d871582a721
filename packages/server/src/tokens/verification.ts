import type { OwnUserRow } from '../storage/sessions.js';
import type { UserProfile } from '../storage/users.js';
import type { TokenClaims } from './claims.js';

/** Why a token is refused; the codes are the API.md §1 401 codes. */
export type TokenFailure = {
    ok: false;
    code: 'invalid_token' | 'expired_token' | 'inactive_token';
    message: string;
    /**
     * not a token this deployment signed: malformed, or a signature a known key refutes (spec
     * Limits counts these). A kid no key row has is not marked: it may be a deleted key's token.
     */
    unsigned?: true;
    /**
     * the kid now names another key row than the one this process verified the signature with
     * (deleted and re-created): the verifier forgets what it remembered under the kid and verifies again
     */
    keyReplaced?: true;
};

/**
 * `profile`: a user subject's profile, read with the token's state (no second round trip);
 * `ownRow`: the same user's readable row (GET /users/@me)
 */
export type Verification = { ok: true; claims: TokenClaims; profile?: UserProfile; ownRow?: OwnUserRow } | TokenFailure;

export const tokenFailure = (code: TokenFailure['code'], message: string): TokenFailure => ({ ok: false, code, message });

/** A token this deployment did not sign (spec Limits: a failed authentication). */
export const unsignedToken = (message: string): TokenFailure => ({ ok: false, code: 'invalid_token', message, unsigned: true });
