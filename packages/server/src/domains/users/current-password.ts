import { ErrorCode } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError, issue, validationFailed } from '../../errors/app-error.js';
import { failedAuthentication } from '../../limits/failed-authentication.js';
import { DUMMY_BCRYPT_HASH, type PasswordHasher } from '../../secrets/passwords.js';
import type { Input } from '../resource/context.js';
import type { TableRow } from '../../storage/resource/table.js';

/** Whether the caller is the user being changed (a self-service change, not an administrator's). */
function changesItself(ctx: RequestContext, row: TableRow<'auth_users'>): boolean {
    const identity = ctx.actor.identity;
    return identity?.type === 'user' && identity.id === row.id;
}

/** Whether an update sets the password or changes the email (the account-takeover members). */
function changesCredentials(row: TableRow<'auth_users'>, input: Input): boolean {
    return input.password !== undefined || (input.email !== undefined && input.email !== row.email);
}

/**
 * OWASP ASVS 5.0 §6.2.3: a user changing its own password or email proves it knows the current
 * password, so a stolen bearer alone cannot take the account over (issue 12 item 4). An
 * administrator's change of another user needs no such proof. Missing: 400 with an issue. Wrong:
 * 400 `invalid_credentials` — not 401, which API.md §1 keeps for the request's own credentials, so
 * a client does not drop a valid bearer — and it counts as a failed authentication (spec Limits).
 */
export async function assertCurrentPassword(passwords: PasswordHasher, ctx: RequestContext, row: TableRow<'auth_users'>, input: Input): Promise<void> {
    if (!changesItself(ctx, row) || !changesCredentials(row, input)) return;
    const current = input.currentPassword;
    if (typeof current !== 'string') {
        throw validationFailed([issue(['currentPassword'], 'required', 'the current password is required to change one\'s own password or email')]);
    }
    // a user without a password verifies against a dummy hash, so the answer takes as long
    const valid = await passwords.verify(current, row.password ?? DUMMY_BCRYPT_HASH) && row.password !== null;
    if (!valid) {
        throw failedAuthentication(new AppError(ErrorCode.INVALID_CREDENTIALS, 'The current password is wrong.', {
            statusCode: 400, issues: [issue(['currentPassword'], 'invalid', 'does not match the current password')],
        }));
    }
}
