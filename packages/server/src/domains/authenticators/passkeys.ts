import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@realmgate/core';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FreshProof } from '../../authn/fresh-proof.js';
import { registrationOptions, verifyRegistration, type RelyingParty } from '../../authn/passkey-ceremonies.js';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError, issue, validationFailed } from '../../errors/app-error.js';
import { findAuthenticator } from '../../storage/authenticators.js';
import { findRealmPasskeySettings, insertPasskey, listPasskeysOfUser } from '../../storage/passkeys.js';
import type { DetachedEventLog } from '../../storage/events.js';
import type { AuthEventRequest } from '../../tokens/auth-events.js';
import { authorizeOnUser } from './access.js';
import {
    assertFreshProof, authenticatorRecord, recordWrite, targetUser, write, type AuthenticatorDeps, type AuthenticatorRecord,
} from './service.js';

/**
 * Passkeys registered through `/user-authenticators` (API.md §8: type `webauthn`), in two requests:
 * the creation options (a challenge bound to the user, issued only after the fresh proof every
 * change of one's own authenticators needs), then the authenticator's response, verified
 * (authn/passkey-ceremonies.ts) and stored as a confirmed authenticator in one write.
 */
export interface PasskeyDeps extends AuthenticatorDeps {
    relyingParty: RelyingParty;
}

/** API.md §8 `passkeysEnabled`: a realm that turned passkeys off registers none (403 access_denied, said plainly). */
async function assertPasskeysEnabled(deps: { db: AuthenticatorDeps['db'] }, realmId: string): Promise<void> {
    const settings = await findRealmPasskeySettings(deps.db, realmId);
    if (!settings?.enabled) throw new AppError(ErrorCode.ACCESS_DENIED, 'Passkeys are not enabled for this realm (its passkeysEnabled setting is false).');
}

/** The user a registration is for, with its passkeys (excluded from a second registration on one authenticator). */
export async function registeringUser(deps: { db: AuthenticatorDeps['db'] }, user: { id: string; name: string; realmId: string }) {
    return { ...user, displayName: null, existing: await listPasskeysOfUser(deps.db, user.id) };
}

/** `POST /user-authenticators/webauthn/registration-options`: WebAuthn §5.4 options for the user (the caller by default). */
export async function passkeyRegistrationOptions(
    deps: PasskeyDeps, ctx: RequestContext, input: { userId?: string }, proof: FreshProof,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await targetUser(deps, ctx, input.userId);
    await authorizeOnUser(ctx, user, 'write');
    await assertPasskeysEnabled(deps, user.realmId);
    await assertFreshProof(deps, ctx, { userId: user.id, realmId: user.realmId }, proof);
    return registrationOptions({ db: deps.db, dialect: deps.dialect, relyingParty: deps.relyingParty }, await registeringUser(deps, user));
}

/**
 * Stores a verified registration as a confirmed `webauthn` authenticator and its
 * `user_authenticator.created` event (the record: never the public key or the credential id).
 */
async function storePasskey(
    deps: Pick<PasskeyDeps, 'db' | 'dialect'>, tx: AuthenticatorDeps['db'], user: { id: string; realmId: string }, name: string,
    credential: NonNullable<Awaited<ReturnType<typeof verifyRegistration>>>,
): Promise<AuthenticatorRecord> {
    const id = randomUUID();
    await insertPasskey(tx, deps.dialect, { id, userId: user.id, realmId: user.realmId, name, ...credential });
    return authenticatorRecord((await findAuthenticator(tx, id))!);
}

/** `POST /user-authenticators/webauthn/registration`: the authenticator's response to the options above. */
export async function registerPasskey(
    deps: PasskeyDeps, ctx: RequestContext, input: { name: string; userId?: string; response: RegistrationResponseJSON },
): Promise<AuthenticatorRecord> {
    const user = await targetUser(deps, ctx, input.userId);
    await authorizeOnUser(ctx, user, 'write');
    await assertPasskeysEnabled(deps, user.realmId);
    const credential = await verifyRegistration({ db: deps.db, dialect: deps.dialect, relyingParty: deps.relyingParty }, { id: user.id, realmId: user.realmId }, input.response);
    if (!credential) {
        throw validationFailed([issue(['response'], 'invalid',
            'is not a valid answer to a live challenge issued to this user (single use, five minutes), from this origin, with user verification')]);
    }
    return write(deps, ctx, async (tx) => {
        const record = await storePasskey(deps, tx, user, input.name, credential);
        await recordWrite(tx, deps, ctx, 'created', record);
        return record;
    });
}

/**
 * A passkey added from the sign-in page's offer right after a password sign-in (API.md §8
 * passkeyPrompt): the challenge was issued to the session's user while its sign-in was fresh
 * (http/passkey-sign-in.ts), which stands in for the fresh proof of the account API. Evented as
 * every registration is (`user_authenticator.created`, the record only). Null when the response fails.
 */
export async function registerPromptedPasskey(
    deps: { db: AuthenticatorDeps['db']; dialect: AuthenticatorDeps['dialect']; relyingParty: RelyingParty; events: DetachedEventLog },
    user: { id: string; realmId: string }, name: string, response: RegistrationResponseJSON, request: AuthEventRequest | null,
): Promise<AuthenticatorRecord | null> {
    await assertPasskeysEnabled(deps, user.realmId);
    const credential = await verifyRegistration(deps, user, response);
    if (!credential) return null;
    const record = await storePasskey(deps, deps.db, user, name, credential);
    deps.events.record({
        name: 'user_authenticator.created', scope: 'api', refType: 'user_authenticator', refId: record.id, realmId: record.realmId,
        actorType: 'user', actorId: user.id, request, data: { ...record },
    });
    return record;
}
