import { randomBytes } from 'node:crypto';
import {
    generateAuthenticationOptions, generateRegistrationOptions, verifyRegistrationResponse,
    type AuthenticationResponseJSON, type AuthenticatorTransportFuture, type PublicKeyCredentialCreationOptionsJSON,
    type PublicKeyCredentialRequestOptionsJSON, type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { sha256Hex } from '../secrets/digests.js';
import { verifyAssertionParts, type VerifyingKeyMemo } from './passkey-signature.js';
import { findPasskeyByDigest, insertChallenge, spendChallenge, type ChallengeBinding, type PasskeyCredentialRow } from '../storage/passkeys.js';

/**
 * The WebAuthn ceremonies (WebAuthn Level 3 §7.1 registration, §7.2 authentication): options and
 * registrations through @simplewebauthn/server, assertions checked by authn/passkey-signature.ts, with the rules of API.md §8: the relying party is PUBLIC_URL's host,
 * the origin is checked exactly, attestation `none`, user verification required, challenges random,
 * single use and short-lived, stored server-side (storage/passkeys.ts). Transport-free: the sign-in
 * pages and the account API both call these.
 */

/** §13.4.3: long enough to finish a ceremony, short enough that a leaked challenge soon dies. */
export const CHALLENGE_MAX_AGE_SECONDS = 300;

/** The relying party of a deployment: id = PUBLIC_URL's host name (§5.1.2 RP ID), origin = its exact origin (§7.1 step 9). */
export interface RelyingParty {
    id: string;
    origin: string;
    name: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
    const url = new URL(publicUrl);
    return { id: url.hostname, origin: url.origin, name: url.hostname };
}

export interface CeremonyDeps {
    db: Kysely<Database>;
    dialect: DialectName;
    relyingParty: RelyingParty;
    /** the verifying keys of stored public keys, remembered (authn/passkey-signature.ts) */
    keys?: VerifyingKeyMemo;
}

/**
 * A fresh challenge (32 random bytes) bound to its ceremony, stored by the digest of its base64url
 * form — the form clientDataJSON carries back (§5.8.1). Answered as bytes: the library encodes a
 * string challenge as UTF-8 before base64url, which would not be the form stored.
 */
async function issueChallenge(deps: CeremonyDeps, binding: ChallengeBinding): Promise<Uint8Array<ArrayBuffer>> {
    const challenge = new Uint8Array(randomBytes(32));
    await insertChallenge(deps.db, deps.dialect, sha256Hex(Buffer.from(challenge).toString('base64url')), binding, new Date(Date.now() + CHALLENGE_MAX_AGE_SECONDS * 1000));
    return challenge;
}

/** The challenge a response's clientDataJSON carries (§5.8.1), or null when it is not parseable. */
function challengeOf(clientDataJSON: unknown): string | null {
    if (typeof clientDataJSON !== 'string' || clientDataJSON.length > 4096) return null;
    try {
        const parsed: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
        const challenge = typeof parsed === 'object' && parsed !== null ? (parsed as { challenge?: unknown }).challenge : undefined;
        return typeof challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(challenge) ? challenge : null;
    } catch {
        return null;
    }
}

/**
 * Spends the response's challenge, once, if it was issued for this ceremony in this realm (and for
 * this user, or for no user in a discoverable sign-in) and is unexpired (storage/passkeys.ts).
 */
async function spendChallengeOf(deps: CeremonyDeps, clientDataJSON: unknown, expected: ChallengeBinding): Promise<string | null> {
    const challenge = challengeOf(clientDataJSON);
    if (challenge === null) return null;
    return await spendChallenge(deps.db, deps.dialect, sha256Hex(challenge), expected) ? challenge : null;
}

/** The user a registration is for: its id is the user handle (§5.4.3: no personal data), its name the label. */
export interface RegisteringUser {
    id: string;
    realmId: string;
    name: string;
    displayName: string | null;
    /** credentials the authenticator must not register twice (§5.4 excludeCredentials) */
    existing: readonly Pick<PasskeyCredentialRow, 'credentialId' | 'transports'>[];
}

/** §5.4: a discoverable credential (a passkey), user verification required, attestation none. */
export async function registrationOptions(deps: CeremonyDeps, user: RegisteringUser): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const challenge = await issueChallenge(deps, { purpose: 'registration', realmId: user.realmId, userId: user.id });
    return generateRegistrationOptions({
        rpName: deps.relyingParty.name, rpID: deps.relyingParty.id, userName: user.name, userDisplayName: user.displayName ?? user.name,
        userID: new TextEncoder().encode(user.id), challenge, attestationType: 'none', timeout: CHALLENGE_MAX_AGE_SECONDS * 1000,
        excludeCredentials: user.existing.map((credential) => ({ id: credential.credentialId, transports: credential.transports as AuthenticatorTransportFuture[] })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
}

/** A registered credential, ready to store. */
export interface NewCredential {
    credentialId: string;
    credentialDigest: string;
    publicKey: string;
    signCount: number;
    transports: string[];
    aaguid: string;
}

/** §7.1: the response to a challenge issued to this user, from our origin, for our RP id, with user verification. Null when anything fails. */
export async function verifyRegistration(deps: CeremonyDeps, user: { id: string; realmId: string }, response: RegistrationResponseJSON): Promise<NewCredential | null> {
    const challenge = await spendChallengeOf(deps, response.response?.clientDataJSON, { purpose: 'registration', realmId: user.realmId, userId: user.id });
    if (challenge === null) return null;
    try {
        const result = await verifyRegistrationResponse({
            response, expectedChallenge: challenge, expectedOrigin: deps.relyingParty.origin, expectedRPID: deps.relyingParty.id, requireUserVerification: true,
        });
        if (!result.verified) return null;
        const { credential, aaguid } = result.registrationInfo;
        return {
            credentialId: credential.id, credentialDigest: sha256Hex(credential.id), publicKey: Buffer.from(credential.publicKey).toString('base64url'),
            signCount: credential.counter, transports: (credential.transports ?? []).filter((transport) => /^[a-z-]{1,32}$/.test(transport)), aaguid,
        };
    } catch {
        // a malformed or forged response is a failed ceremony, never a server error
        return null;
    }
}

/**
 * §5.5: user verification required. Without a user: a discoverable sign-in, empty allowCredentials
 * (the authenticator offers the realm's passkeys it holds). With one: that user's passkeys (a second factor).
 */
export async function authenticationOptions(
    deps: CeremonyDeps, realmId: string, user: { id: string; credentials: readonly Pick<PasskeyCredentialRow, 'credentialId' | 'transports'>[] } | null,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const challenge = await issueChallenge(deps, { purpose: 'authentication', realmId, userId: user?.id ?? null });
    return generateAuthenticationOptions({
        rpID: deps.relyingParty.id, challenge, userVerification: 'required', timeout: CHALLENGE_MAX_AGE_SECONDS * 1000,
        allowCredentials: (user?.credentials ?? []).map((credential) => ({ id: credential.credentialId, transports: credential.transports as AuthenticatorTransportFuture[] })),
    });
}

/** What an assertion proved: the credential and its new counter, or why it failed. */
export type AssertionOutcome =
    { ok: true; credential: PasskeyCredentialRow; newCounter: number } |
    /** no usable challenge, no such credential in this realm (for this user), or a bad signature / origin / flags */
    { ok: false; reason: 'invalid'; credential: PasskeyCredentialRow | null } |
    /** §7.2 step 21: the counter did not grow — the authenticator may have been cloned */
    { ok: false; reason: 'cloned'; credential: PasskeyCredentialRow; newCounter: number };

/**
 * Verifies an assertion against a stored credential, its counter aside (judged by the caller,
 * §7.2 step 21): with node:crypto (authn/passkey-signature.ts), the sign-in's hot path; the
 * answer is the new counter, or null.
 */
export function verifyAssertionSignature(
    relyingParty: RelyingParty, credential: PasskeyCredentialRow, challenge: string, response: AuthenticationResponseJSON, keys?: VerifyingKeyMemo,
): number | null {
    return verifyAssertionParts({ rpId: relyingParty.id, origin: relyingParty.origin, challenge }, credential.publicKey, response, keys);
}

/**
 * §7.2: the response's challenge issued for this realm (and user), the credential it names a passkey
 * of this realm (of this user), the signature, origin, RP id and user-verification flag right, and
 * the counter grown unless both are zero (§6.1.1: authenticators without a counter send 0).
 */
export async function verifyAssertion(
    deps: CeremonyDeps, realmId: string, userId: string | null, response: AuthenticationResponseJSON,
): Promise<AssertionOutcome> {
    const challenge = await spendChallengeOf(deps, response.response?.clientDataJSON, { purpose: 'authentication', realmId, userId });
    const id = typeof response.id === 'string' && response.id.length <= 1400 ? response.id : '';
    const found = id === '' ? undefined : await findPasskeyByDigest(deps.db, sha256Hex(id));
    // a credential of another realm or user is as unknown as none (a realm A passkey never signs in to B)
    const credential = found && found.realmId === realmId && (userId === null || found.userId === userId) ? found : null;
    if (challenge === null || credential === null) return { ok: false, reason: 'invalid', credential };
    // §7.2 step 6: a discoverable credential's user handle names the user it was registered for
    const handle = response.response?.userHandle;
    if (handle !== undefined && handle !== null && Buffer.from(String(handle), 'base64url').toString('utf8') !== credential.userId) {
        return { ok: false, reason: 'invalid', credential };
    }
    const newCounter = verifyAssertionSignature(deps.relyingParty, credential, challenge, response, deps.keys);
    if (newCounter === null) return { ok: false, reason: 'invalid', credential };
    if ((newCounter > 0 || credential.signCount > 0) && newCounter <= credential.signCount) return { ok: false, reason: 'cloned', credential, newCounter };
    return { ok: true, credential, newCounter };
}
