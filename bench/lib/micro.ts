/**
 * In-process reference rates measured in the same run as the HTTP scenarios: bcrypt verification
 * at the server's cost (the ceiling of the password grant) and JWS signing/verification per
 * algorithm (ES256 measured against RS256), with the server's own JWS code, and passkey
 * assertion verification (WebAuthn §7.2).
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { verifyRegistrationResponse, type AuthenticationResponseJSON, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { relyingPartyOf, verifyAssertionSignature } from '../../packages/server/src/authn/passkey-ceremonies.js';
import type { VerifyingKey } from '../../packages/server/src/authn/passkey-signature.js';
import type { PasskeyCredentialRow } from '../../packages/server/src/storage/passkeys.js';
import { SoftwareAuthenticator } from '../../packages/server/test/software-authenticator.js';
import { hash, verify } from '@node-rs/bcrypt';
import { generateSigningMaterial, type SigningAlgorithm } from '../../packages/server/src/keys/material.js';
import { decodeJws, signJws, verifyJws } from '../../packages/server/src/tokens/jws.js';
import { elapsedMs, median, nowNs, timeRounds, type BenchOptions } from '../harness.js';

/**
 * Verifications per second with `concurrency` in flight, as the server runs them (off the event
 * loop on libuv's pool), for `seconds`.
 */
export async function bcryptVerifyRate(cost: number, concurrency: number, seconds: number): Promise<number> {
    const stored = await hash('correct horse battery staple', { cost });
    let done = 0;
    const until = Date.now() + seconds * 1000;
    const start = nowNs();
    await Promise.all(Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) {
            if (!(await verify('correct horse battery staple', stored))) throw new Error('bcrypt verification failed');
            done++;
        }
    }));
    return done / (elapsedMs(start) / 1000);
}

export interface JwsRates {
    algorithm: SigningAlgorithm;
    signPerSecond: number;
    verifyPerSecond: number;
}

export async function jwsRates(algorithm: SigningAlgorithm, options: BenchOptions): Promise<JwsRates> {
    const material = await generateSigningMaterial(algorithm);
    const privateKey = createPrivateKey({ key: material.privatePem, format: 'pem' });
    const publicKey = createPublicKey(privateKey);
    // the claims of a typical access token (API.md §4)
    const payload = {
        iss: 'http://127.0.0.1:3000/realms/bench', sub: '8f7c5a34-7a56-4b61-9a4e-3f1f6f2b0c11', sub_kind: 'user', kind: 'access_token',
        realm_id: '0b6d3c2e-1f4a-4c55-8d7e-6a5b4c3d2e1f', realm_name: 'bench', scope: 'global', session_id: 'c3f1e2d4-5b6a-4789-8abc-def012345678',
        jti: '1e2d3c4b-5a69-4788-9abc-def012345679', iat: 1_700_000_000, exp: 1_700_000_900,
    };
    const token = signJws(algorithm, 'kid', payload, privateKey);
    const decoded = decodeJws(token)!;
    if (!verifyJws(algorithm, publicKey, decoded)) throw new Error(`${algorithm}: a fresh signature does not verify`);
    const sign = await timeRounds((count) => {
        const start = nowNs();
        for (let i = 0; i < count; i++) signJws(algorithm, 'kid', payload, privateKey);
        return elapsedMs(start);
    }, options);
    const check = await timeRounds((count) => {
        const start = nowNs();
        for (let i = 0; i < count; i++) if (!verifyJws(algorithm, publicKey, decoded)) throw new Error('verification failed');
        return elapsedMs(start);
    }, options);
    return { algorithm, signPerSecond: 1000 / median(sign), verifyPerSecond: 1000 / median(check) };
}

/**
 * Passkey assertion verifications per second (WebAuthn §7.2 as the sign-in runs it, in process:
 * clientDataJSON type, challenge, exact origin, RP id hash, user-presence and user-verification
 * flags, and the ES256 signature over authenticatorData ‖ SHA-256(clientDataJSON), with the
 * credential's verifying key remembered as the server's `passkey_keys` cache does), one at a time;
 * the challenge and credential lookups are SQL, not measured here.
 */
export async function passkeyAssertionRate(options: BenchOptions): Promise<number> {
    const relyingParty = relyingPartyOf('http://127.0.0.1:3000');
    const authenticator = new SoftwareAuthenticator(relyingParty.id, relyingParty.origin, 'bench-user');
    const challenge = randomBytes(32).toString('base64url');
    const registration = await verifyRegistrationResponse({
        response: authenticator.register(challenge) as RegistrationResponseJSON, expectedChallenge: challenge,
        expectedOrigin: relyingParty.origin, expectedRPID: relyingParty.id, requireUserVerification: true,
    });
    if (!registration.verified) throw new Error('passkey registration failed');
    const credential: PasskeyCredentialRow = {
        id: 'bench', userId: 'bench-user', realmId: 'bench', name: 'bench', credentialId: authenticator.id,
        publicKey: Buffer.from(registration.registrationInfo.credential.publicKey).toString('base64url'),
        signCount: 0, transports: [], aaguid: null, lastUsedAt: null,
    };
    const assertion = authenticator.assert(challenge) as AuthenticationResponseJSON;
    const keys = new Map<string, VerifyingKey>();
    const rounds = await timeRounds((count) => {
        const start = nowNs();
        for (let i = 0; i < count; i++) {
            if (verifyAssertionSignature(relyingParty, credential, challenge, assertion, keys) === null) throw new Error('passkey assertion failed');
        }
        return elapsedMs(start);
    }, options);
    return 1000 / median(rounds);
}
