import { ErrorCode } from '@realmgate/core';
import { AppError, issue } from '../errors/app-error.js';
import { failedAuthentication } from '../limits/failed-authentication.js';
import { DUMMY_BCRYPT_HASH, type PasswordHasher } from '../secrets/passwords.js';

/**
 * Proof of the current password for a change of one's own password or email (OWASP ASVS 5.0
 * §6.2.3). Wrong: 400 `invalid_credentials` — not 401, which API.md §1 keeps for the request's own
 * credentials, so a client does not drop its valid bearer — counted as a failed authentication
 * (spec Limits). A user without a password verifies against a dummy hash, so the answer costs the same.
 */
export async function verifyCurrentPassword(passwords: PasswordHasher, stored: string | null, presented: string): Promise<void> {
    const valid = await passwords.verify(presented, stored ?? DUMMY_BCRYPT_HASH) && stored !== null;
    if (valid) return;
    throw failedAuthentication(new AppError(ErrorCode.INVALID_CREDENTIALS, 'The current password is wrong.', {
        statusCode: 400, issues: [issue(['currentPassword'], 'invalid', 'does not match the current password')],
    }));
}
