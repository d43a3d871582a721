import { randomUUID } from 'node:crypto';
import { secondFactorNeeded } from '../../authn/second-factor.js';
import { insertMfaTicket } from '../../storage/authenticators.js';
import type { TokenSubject } from '../../tokens/claims.js';
import { invalidGrant, mfaRequired } from '../errors.js';
import type { GrantDeps, GrantRequest } from './contract.js';

/** An mfa_token lives 5 minutes: long enough to open an authenticator app, short enough to be useless when stolen. */
const MFA_TOKEN_MAX_AGE = 300;

/**
 * After a right password (multi-factor sign-in with TOTP; RFC 6238): when the realm turns multi-factor on and the user holds
 * a confirmed authenticator, no token is issued — `mfa_required` carries an mfa_token bound to the
 * user, client, scope and realm, single use (its auth_mfa_tickets row), redeemed with the code by
 * the `urn:realmgate:params:oauth:grant-type:mfa-otp` grant. A realm that requires multi-factor
 * answers `mfa_required` without a ticket to a user who has not enrolled: a password alone never
 * signs in there.
 */
export async function assertNoSecondFactorDue(deps: GrantDeps, request: GrantRequest, subject: TokenSubject, scope: string): Promise<void> {
    const needed = await secondFactorNeeded(request.db, request.realm.id, subject.id);
    if (needed === 'none') return;
    // API.md §7 emailVerificationRequired: RFC 6749 §5.2 invalid_grant, the password was right but is no way in yet
    if (needed === 'unverified') throw invalidGrant('The email address of this account is not verified yet: follow the activation link, then sign in.');
    if (needed === 'enrolment') {
        throw mfaRequired('The realm requires multi-factor sign-in: enrol an authenticator (/user-authenticators) before signing in with a password.', null);
    }
    const ticketId = randomUUID();
    await insertMfaTicket(request.db, deps.secondFactor.dialect, {
        id: ticketId, userId: subject.id, realmId: subject.realmId, expiresAt: new Date(Date.now() + MFA_TOKEN_MAX_AGE * 1000),
    });
    const mfaToken = await deps.tokens.issueMfaToken(request.db, {
        subject, clientId: request.client?.row.id ?? null, scope, ticketId, expiresIn: MFA_TOKEN_MAX_AGE,
    });
    throw mfaRequired('A second factor is required: redeem mfa_token with a one-time code.', mfaToken);
}
