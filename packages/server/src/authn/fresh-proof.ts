import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError, issue, validationFailed } from '../errors/app-error.js';
import { failedAuthentication, failedSignInOf, isFailedAuthentication } from '../limits/failed-authentication.js';
import type { PasswordHasher } from '../secrets/passwords.js';
import { findUserById } from '../storage/users.js';
import { verifyCurrentPassword } from './current-password.js';
import type { SecondFactorAttempts } from '../limits/second-factor-attempts.js';
import type { DetachedEventLog } from '../storage/events.js';
import { verifySecondFactor, type SecondFactorDeps } from './second-factor.js';
import { recordSecondFactorLock, secondFactorLocked } from './ticket-factor.js';

/** What a request presents as a fresh proof: the current password, or a current code of a confirmed authenticator. */
export interface FreshProof {
    currentPassword?: string;
    currentCode?: string;
}

export interface FreshProofDeps extends SecondFactorDeps {
    passwords: PasswordHasher;
    /** wrong codes count toward the user's second-factor limit (limits/second-factor-attempts.ts) */
    attempts: SecondFactorAttempts;
    events: DetachedEventLog;
}

/**
 * OWASP ASVS 5.0 §6.2.3 and §6.3.x: a user changing its own authentication factors proves it is
 * the person, not only the holder of a bearer — the current password (the proof of a password
 * change, current-password.ts), or a current TOTP code of a confirmed authenticator (RFC 6238;
 * accepted once, like any sign-in code). The password wins when both are sent. Missing: 400 with
 * an issue; wrong: 400 `invalid_credentials` counted as a failed authentication (spec Limits),
 * never 401, which API.md §1 keeps for the request's own credentials.
 */
export async function verifyFreshProof(deps: FreshProofDeps, db: Kysely<Database>, user: { userId: string; realmId: string }, proof: FreshProof): Promise<void> {
    const { userId } = user;
    if (proof.currentPassword !== undefined) {
        const row = await findUserById(db, userId);
        await verifyCurrentPassword(deps.passwords, row?.password ?? null, proof.currentPassword);
        return;
    }
    if (proof.currentCode !== undefined) {
        // a code is a second factor wherever it is sent: a bearer's holder guessing it here meets
        // the same per-user limit and lock as a sign-in (RFC 4226 §7.3), whatever its address
        const lockedFor = await deps.attempts.lockedFor(userId);
        if (lockedFor !== null) throw secondFactorLocked(lockedFor);
        try {
            await verifySecondFactor(deps, db, userId, { otp: proof.currentCode });
            return;
        } catch (error) {
            if (!isFailedAuthentication(error)) throw error;
            const { lock } = await deps.attempts.failed(null, userId);
            if (lock) {
                recordSecondFactorLock(deps.events, user, lock, null);
                throw failedAuthentication(secondFactorLocked(lock.seconds), failedSignInOf(error));
            }
            throw failedAuthentication(new AppError(ErrorCode.INVALID_CREDENTIALS, 'The current code is wrong.', {
                statusCode: 400, issues: [issue(['currentCode'], 'invalid', 'is not a current code of a confirmed authenticator')],
            }), failedSignInOf(error));
        }
    }
    throw validationFailed([issue(['currentPassword'], 'required',
        'a change of one\'s own authenticators needs the current password, or currentCode: a current code of a confirmed authenticator')]);
}
