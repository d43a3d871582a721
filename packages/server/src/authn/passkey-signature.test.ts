import { randomBytes } from 'node:crypto';
import { verifyAuthenticationResponse, verifyRegistrationResponse, type AuthenticationResponseJSON, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { describe, expect, it } from 'vitest';
import { SoftwareAuthenticator, type CeremonyKnobs } from '../../test/software-authenticator.js';
import { verifyAssertionParts, type VerifyingKey } from './passkey-signature.js';

/*
 * The sign-in's own assertion check (authn/passkey-signature.ts) agrees with
 * @simplewebauthn/server's verifyAuthenticationResponse on every case a software authenticator
 * can produce: the right assertion, and each check failing alone.
 */
const RP = { rpId: 'login.example', origin: 'https://login.example' };

async function registered() {
    const authenticator = new SoftwareAuthenticator(RP.rpId, RP.origin, 'user-1');
    const challenge = randomBytes(32).toString('base64url');
    const result = await verifyRegistrationResponse({
        response: authenticator.register(challenge) as RegistrationResponseJSON, expectedChallenge: challenge, expectedOrigin: RP.origin, expectedRPID: RP.rpId,
    });
    if (!result.verified) throw new Error('registration failed');
    return { authenticator, publicKey: Buffer.from(result.registrationInfo.credential.publicKey).toString('base64url') };
}

async function library(publicKey: string, id: string, challenge: string, response: AuthenticationResponseJSON): Promise<number | null> {
    try {
        const result = await verifyAuthenticationResponse({
            response, expectedChallenge: challenge, expectedOrigin: RP.origin, expectedRPID: RP.rpId, requireUserVerification: true,
            credential: { id, publicKey: Buffer.from(publicKey, 'base64url'), counter: 0 },
        });
        return result.verified ? result.authenticationInfo.newCounter : null;
    } catch {
        return null;
    }
}

describe('passkey assertion checks (WebAuthn §7.2) against @simplewebauthn/server', () => {
    it('agrees on the right assertion and on each wrong one', async () => {
        const { authenticator, publicKey } = await registered();
        const challenge = randomBytes(32).toString('base64url');
        const cases: { name: string; knobs?: CeremonyKnobs; challenge?: string; tamper?: (response: AuthenticationResponseJSON) => void; valid: boolean }[] = [
            { name: 'right', valid: true },
            { name: 'counter 0', knobs: { signCount: 0 }, valid: true },
            { name: 'wrong origin', knobs: { origin: 'https://evil.example' }, valid: false },
            { name: 'origin with a port', knobs: { origin: `${RP.origin}:8443` }, valid: false },
            { name: 'wrong RP id', knobs: { rpId: 'evil.example' }, valid: false },
            { name: 'user not verified', knobs: { userVerified: false }, valid: false },
            { name: 'another challenge', challenge: randomBytes(32).toString('base64url'), valid: false },
            { name: 'signature tampered', tamper: (response) => { response.response.signature = `${response.response.signature.slice(0, -4)}AAAA`; }, valid: false },
            {
                name: 'counter changed after signing',
                tamper: (response) => {
                    const data = Buffer.from(response.response.authenticatorData, 'base64url');
                    data.writeUInt32BE(999, 33);
                    response.response.authenticatorData = data.toString('base64url');
                },
                valid: false,
            },
            { name: 'authenticator data cut short', tamper: (response) => { response.response.authenticatorData = 'AAAA'; }, valid: false },
        ];
        for (const item of cases) {
            const response = authenticator.assert(item.challenge ?? challenge, item.knobs) as AuthenticationResponseJSON;
            item.tamper?.(response);
            const ours = verifyAssertionParts({ ...RP, challenge }, publicKey, response);
            const theirs = await library(publicKey, authenticator.id, challenge, response);
            expect(ours, item.name).toBe(theirs);
            expect(ours !== null, item.name).toBe(item.valid);
        }
    });

    it('remembers the verifying key of a stored public key, and answers null for a key it cannot read', async () => {
        const { authenticator, publicKey } = await registered();
        const challenge = randomBytes(32).toString('base64url');
        const memo = new Map<string, VerifyingKey>();
        expect(verifyAssertionParts({ ...RP, challenge }, publicKey, authenticator.assert(challenge), memo)).toBe(authenticator.counter);
        expect([...memo.keys()]).toEqual([publicKey]);
        expect(verifyAssertionParts({ ...RP, challenge }, publicKey, authenticator.assert(challenge), memo)).toBe(authenticator.counter);
        expect(verifyAssertionParts({ ...RP, challenge }, 'AAAA', authenticator.assert(challenge))).toBeNull();
    });
});
