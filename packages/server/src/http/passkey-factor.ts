import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { verifyTicketPasskey as verifyTicketPasskeyOf, type PasskeyAssertionDeps } from '../authn/passkey-assertion.js';
import { relyingPartyOf } from '../authn/passkey-ceremonies.js';
import type { LiveTicket, TicketFactorOutcome } from '../authn/ticket-factor.js';
import { listAuthenticatorsOfUser } from '../storage/authenticators.js';
import { findRealmPasskeySettings } from '../storage/passkeys.js';
import type { AuthEventRequest } from '../tokens/auth-events.js';
import type { BrowserContext } from './authorize-render.js';

/** What the second-factor page offers a user: a code when it holds a TOTP authenticator, a passkey when it holds one of a realm with passkeys on. */
export interface SecondFactorOffer {
    totp: boolean;
    passkey: boolean;
}

type Db = BrowserContext['deps']['db'];

export async function secondFactorOffer(db: Db, realmId: string, userId: string): Promise<SecondFactorOffer> {
    const confirmed = (await listAuthenticatorsOfUser(db, userId)).filter((authenticator) => authenticator.confirmed);
    const settings = await findRealmPasskeySettings(db, realmId);
    return {
        totp: confirmed.some((authenticator) => authenticator.type === 'totp'),
        passkey: settings?.enabled === true && confirmed.some((authenticator) => authenticator.type === 'webauthn'),
    };
}

/** API.md §8 passkeyPrompt: after a password sign-in, offer a passkey to a user of a realm with both switches on who holds none. */
export async function passkeyOfferDue(db: Db, realmId: string, userId: string): Promise<boolean> {
    const settings = await findRealmPasskeySettings(db, realmId);
    if (!settings?.enabled || !settings.prompt) return false;
    return !(await listAuthenticatorsOfUser(db, userId)).some((authenticator) => authenticator.type === 'webauthn');
}

/** The ceremonies' dependencies of a browser route: the relying party is PUBLIC_URL's (authn/passkey-ceremonies.ts). */
export function passkeyDeps(context: BrowserContext): PasskeyAssertionDeps {
    const { deps } = context;
    return {
        db: deps.db, dialect: deps.handle.dialect, relyingParty: relyingPartyOf(deps.config.publicUrl), keys: deps.passkeyKeys,
        attempts: deps.limits.secondFactor, events: deps.events,
    };
}

/** A form's `passkey_response` field (the JSON the page's script put there), when it has the shape of a WebAuthn answer; null otherwise. */
export function passkeyResponseOf<T = AuthenticationResponseJSON>(text: string): T | null {
    if (text === '' || text.length > 70_000) return null;
    let parsed: unknown;
    try {
        parsed = JSON.parse(text);
    } catch {
        return null;
    }
    if (typeof parsed !== 'object' || parsed === null) return null;
    const candidate = parsed as { id?: unknown; response?: unknown; type?: unknown };
    if (typeof candidate.id !== 'string' || candidate.type !== 'public-key' || typeof candidate.response !== 'object' || candidate.response === null) return null;
    return parsed as T;
}

/** A passkey as the second factor of the browser's pending sign-in (authn/passkey-assertion.ts). */
export function verifyTicketPasskey(context: BrowserContext, ticket: LiveTicket, response: AuthenticationResponseJSON | null, request: AuthEventRequest | null): Promise<TicketFactorOutcome> {
    return verifyTicketPasskeyOf(passkeyDeps(context), ticket, response, request);
}
