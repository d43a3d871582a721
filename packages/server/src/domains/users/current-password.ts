import type { RequestContext } from '../../authz/request-context.js';
import { verifyCurrentPassword } from '../../authn/current-password.js';
import { issue, validationFailed } from '../../errors/app-error.js';
import type { PasswordHasher } from '../../secrets/passwords.js';
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
 * password, so a stolen bearer alone cannot take the account over (OWASP ASVS 5.0 §6.2.3: a self-service credential change needs the current password). An
 * administrator's change of another user needs no such proof. Missing: 400 with an issue; wrong:
 * see authn/current-password.ts.
 */
export async function assertCurrentPassword(passwords: PasswordHasher, ctx: RequestContext, row: TableRow<'auth_users'>, input: Input): Promise<void> {
    if (!changesItself(ctx, row) || !changesCredentials(row, input)) return;
    const current = input.currentPassword;
    if (typeof current !== 'string') {
        throw validationFailed([issue(['currentPassword'], 'required', 'the current password is required to change one\'s own password or email')]);
    }
    await verifyCurrentPassword(passwords, row.password, current);
}
