import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../secrets/digests.js';
import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import { verify } from 'otplib';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { AppError, issue, validationFailed } from '../errors/app-error.js';
import { failedAuthentication } from '../limits/failed-authentication.js';
import type { SecretBox } from '../secrets/secret-box.js';
import {
    acceptTimeStep, findRealmMfaSettings, isEmailVerified, listAuthenticatorsOfUser, useRecoveryCode, type AuthenticatorRow,
} from '../storage/authenticators.js';

/**
 * RFC 6238 §5.2 and §6: one time step of network delay either side is accepted (30 s steps, so a
 * window of 30 s before and after now). A code of a step at or before the last accepted one is a
 * replay and refused (§5.2: "the verifier MUST NOT accept the second attempt of the same OTP").
 */
const EPOCH_TOLERANCE_SECONDS = 30;

/** A presented second factor: a current TOTP code, or one of the recovery codes. */
export type SecondFactorInput = { otp: string } | { recoveryCode: string };

/** SHA-256 hex of a recovery code, normalized (case and separators do not matter to a human). */
export function recoveryCodeDigest(code: string): string {
    return sha256Hex(code.replace(/[\s-]/g, '').toLowerCase());
}

/** Ten recovery codes of 10 base32-ish characters (50 bits each), shown once, stored as digests. */
export function newRecoveryCodes(count = 10): string[] {
    const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
    return Array.from({ length: count }, () => {
        const bytes = randomBytes(10);
        const chars = [...bytes].map((byte) => alphabet[byte % alphabet.length]).join('');
        return `${chars.slice(0, 5)}-${chars.slice(5)}`;
    });
}

/** A wrong second factor: a failed authentication (spec Limits, as a wrong password). */
function invalidSecondFactor(): AppError {
    return failedAuthentication(new AppError(ErrorCode.INVALID_GRANT, 'The one-time code is invalid.'));
}

export interface SecondFactorDeps {
    dialect: DialectName;
    secrets: SecretBox;
}

/**
 * Checks a code against one authenticator: the code is valid for a step after the last accepted
 * one, and recording that step wins against a concurrent use of the same code. The step is
 * recorded (and the authenticator confirmed when `confirm`); true when accepted.
 */
async function acceptCode(deps: SecondFactorDeps, db: Kysely<Database>, authenticator: AuthenticatorRow, code: string, confirm: boolean): Promise<boolean> {
    if (!/^\d{6}$/.test(code)) return false;
    let secret: string;
    try {
        secret = await deps.secrets.decrypt(db, authenticator.secret);
    } catch {
        // spec States: a disabled realm encryption key makes its seeds unusable until enabled again
        // (as client secrets sealed under it); the recovery codes still work
        return false;
    }
    let result: Awaited<ReturnType<typeof verify>>;
    try {
        result = await verify({
            secret, token: code, epochTolerance: EPOCH_TOLERANCE_SECONDS,
            ...(authenticator.lastStep === null ? {} : { afterTimeStep: authenticator.lastStep }),
        });
    } catch {
        // otplib refuses a last step beyond the window (a clock set back since): no code can be new
        return false;
    }
    if (!result.valid || !('timeStep' in result)) return false;
    return acceptTimeStep(db, deps.dialect, authenticator.id, result.timeStep, authenticator.lastStep, confirm);
}

/**
 * Confirms an enrolment with a current code (the app proves it holds the seed); a wrong code is a
 * 400 on `code` that counts as a failed authentication (spec Limits), as a wrong current password does.
 */
export async function confirmWithCode(deps: SecondFactorDeps, db: Kysely<Database>, authenticator: AuthenticatorRow, code: string): Promise<void> {
    if (await acceptCode(deps, db, authenticator, code.trim(), true)) return;
    throw failedAuthentication(validationFailed([issue(['code'], 'invalid_code', 'is not a current code of this authenticator')]));
}

/**
 * The transport-free second-factor check every sign-in uses (the password grant's mfa_token
 * redemption now, the browser's second sign-in page later): a current code of one of the user's
 * confirmed authenticators, accepted once, or an unused recovery code, used up. Throws the
 * failed-authentication error otherwise (spec Limits: wrong codes count as failed authentications).
 */
export async function verifySecondFactor(deps: SecondFactorDeps, db: Kysely<Database>, userId: string, input: SecondFactorInput): Promise<void> {
    if ('recoveryCode' in input) {
        if (await useRecoveryCode(db, deps.dialect, userId, recoveryCodeDigest(input.recoveryCode))) return;
        throw invalidSecondFactor();
    }
    // passkeys prove themselves by an assertion (authn/passkey-assertion.ts), never by a code
    const confirmed = (await listAuthenticatorsOfUser(db, userId)).filter((authenticator) => authenticator.confirmed && authenticator.type === 'totp');
    for (const authenticator of confirmed) {
        if (await acceptCode(deps, db, authenticator, input.otp.trim(), false)) return;
    }
    throw invalidSecondFactor();
}

/** Whether a user holds a confirmed authenticator (read without a dialect: the flag is compared in JS). */
export async function holdsConfirmedAuthenticator(db: Kysely<Database>, userId: string): Promise<boolean> {
    return (await listAuthenticatorsOfUser(db, userId)).some((authenticator) => authenticator.confirmed);
}

/**
 * What a sign-in of this user in this realm needs after the password (multi-factor sign-in with TOTP; RFC 6238):
 * `none` — multi-factor off, or on and the user holds no confirmed authenticator in a realm that
 * does not require one; `code` — the second factor; `enrolment` — the realm requires multi-factor
 * (mfaRequired) and the user has no confirmed authenticator yet: no token is issued by a password
 * alone, the user enrols through a session started otherwise (an administrator, or the browser).
 */
export async function secondFactorNeeded(db: Kysely<Database>, realmId: string, userId: string): Promise<'none' | 'code' | 'enrolment' | 'unverified'> {
    const settings = await findRealmMfaSettings(db, realmId);
    // API.md §7 emailVerificationRequired (Keycloak's "verify email"): a user whose address is not
    // verified yet signs in nowhere in the realm — the activation mail's round-trip verifies it;
    // read with the multi-factor settings, so a realm without the setting pays no extra query
    if (settings?.emailVerificationRequired && !(await isEmailVerified(db, userId))) return 'unverified';
    if (!settings?.enabled && !settings?.required) return 'none';
    // a passkey proves a second factor only while the realm's passkeys are on (API.md §8 passkeysEnabled)
    const usable = (await listAuthenticatorsOfUser(db, userId))
        .filter((authenticator) => authenticator.confirmed && (authenticator.type === 'totp' || settings.passkeysEnabled));
    if (usable.length > 0) return 'code';
    return settings.required ? 'enrolment' : 'none';
}
