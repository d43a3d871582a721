import { verifyTicketFactor } from '../../authn/ticket-factor.js';
import { consumeMfaTicket, findLiveMfaTicket } from '../../storage/authenticators.js';
import { findSubjectState } from '../../storage/subjects.js';
import { unverifiedRealmOf } from '../../tokens/jws.js';
import { invalidGrant, invalidRequest } from '../errors.js';
import { assertClientAdmits } from './access-policy.js';
import { issueForLogin, type Grant } from './contract.js';

/** The grant type redeeming an mfa_token (RFC 6238 code): an extension URI, as RFC 6749 §4.5 asks of new grants. */
export const MFA_OTP_GRANT_TYPE = 'urn:realmgate:params:oauth:grant-type:mfa-otp';

/**
 * RFC 6749 §4.5 extension grant: the second step of a password sign-in with multi-factor on. The
 * `mfa_token` of the password grant's `mfa_required` answer and either a current TOTP code (`otp`,
 * RFC 6238) or an unused `recovery_code`; success issues the tokens in a new session exactly as the
 * password grant would have, with the scope the ticket was bound to. A wrong code counts as a
 * failed authentication (spec Limits) and on the ticket and the user (authn/ticket-factor.ts): the
 * ticket survives a few for an honest retry, the user's second factor locks after more. A
 * redeemed ticket is gone (single use), and a ticket that is not live verifies no factor at all.
 */

/** Used, expired, spent by wrong codes or never issued: one answer, whatever factor came with it. */
const DEAD_TICKET = 'The mfa_token was already used or has expired.';

export const mfaOtpGrant: Grant = {
    type: MFA_OTP_GRANT_TYPE,
    parameters: [{ name: 'mfa_token', required: true }, { name: 'otp', required: false }, { name: 'recovery_code', required: false }],
    // as the password grant it completes: a confidential, public or absent client alike
    clientAuthentication: 'optional',
    create: (deps) => ({
        realmHint: (params) => unverifiedRealmOf(params.mfa_token),
        async handle(request) {
            const { mfa_token: token, otp, recovery_code: recoveryCode } = request.params;
            if (!token) throw invalidRequest('The multi-factor grant needs mfa_token.');
            if ((otp === undefined) === (recoveryCode === undefined)) throw invalidRequest('The multi-factor grant needs exactly one of otp and recovery_code.');
            const verified = await deps.tokens.verifyMfaToken(request.db, token);
            if (!verified.ok) throw invalidGrant(`The mfa_token is not valid: ${verified.message}`);
            const claims = verified.claims;
            if (claims.realm_id !== request.realm.id) throw invalidGrant('The mfa_token belongs to another realm.');
            // bound to the client of the password request (or to none), as a refresh token is (RFC 6749 §6)
            if ((claims.client_id ?? null) !== (request.client?.row.id ?? null)) throw invalidGrant('The mfa_token was issued to another client.');
            // the ticket must be live before any factor is looked at: a spent one would otherwise still
            // tell a right code from a wrong one, and use up a recovery code sent with it
            const ticket = await findLiveMfaTicket(request.db, deps.secondFactor.dialect, claims.jti);
            if (!ticket || ticket.userId !== claims.sub) throw invalidGrant(DEAD_TICKET);
            const subject = await findSubjectState(request.db, 'user', claims.sub);
            if (!subject || subject.realmId !== claims.realm_id) throw invalidGrant('The user does not exist.');
            if (!subject.active) throw invalidGrant('The user is inactive.');
            const outcome = await verifyTicketFactor(
                deps.secondFactor, request.db, { id: claims.jti, userId: ticket.userId, realmId: ticket.realmId },
                otp !== undefined ? { otp } : { recoveryCode: recoveryCode! }, { ip: request.ipAddress, method: 'POST', path: '/token' },
            );
            if (!outcome.ok) throw outcome.error;
            // consumed once the code is right: a wrong code leaves an honest retry possible
            if (!(await consumeMfaTicket(request.db, claims.jti, claims.sub))) throw invalidGrant(DEAD_TICKET);
            const tokenSubject = { id: claims.sub, kind: 'user' as const, realmId: request.realm.id, realmName: request.realm.name };
            await assertClientAdmits(request, tokenSubject);
            return issueForLogin(deps, request, tokenSubject, claims.scope, true);
        },
    }),
};
