import {
    createAuthorizationRequest, createClient, handleAuthorizationCallback, isRealmgateError, refreshingSession,
    type AuthorizationSource, type PendingAuthorization, type TokenSet,
} from '@realmgate/client';
import type { ConsoleConfig } from './config.js';
import { forgetSignedIn, markSignedIn, signedInRealm, type RealmEndpoints } from './realm.js';
import { t } from './i18n/i18n.js';

/**
 * Signing in (spec beta.66 items 1 and 4). Both ways go through the realm's
 * authorization endpoint as the public client admin-console with code + PKCE (RFC 7636 S256):
 * - served by the API (`session`): /authorize signs the person in with the auth pages, which set
 *   the console session cookie (authn/console-session.ts); the console then calls the API with that
 *   cookie, not narrowed by any client (spec Authentication 8). The code it is sent back with is
 *   not needed and is left to expire (single use, 5 minutes: spec Authentication 12).
 * - standalone (`token`): the code is redeemed for tokens of admin-console, narrowed like any client.
 * The realm is the tab's choice (realm.ts): its own admin-console client and its endpoints from its
 * discovery document, so the session (cookie or tokens) is that realm's user's. A sign-in completed
 * through another realm than the one now chosen counts as signed out here.
 */
const PENDING = 'realmgate.console.pending';
const TOKENS = 'realmgate.console.tokens';

interface Pending extends PendingAuthorization {
    /** where the person was going when the sign-in started */
    returnTo: string;
    /** the realm signed in through */
    realm: string;
}

export interface SignedIn {
    /** the bearer source of a standalone console; none when the cookie is the credential */
    auth?: AuthorizationSource;
}

/** Sends the browser to the sign-in page; it comes back to this console where it left. */
export async function startSignIn(config: ConsoleConfig, realm: RealmEndpoints, extra: Record<string, string> = {}): Promise<never> {
    const pending = await createAuthorizationRequest({
        baseUrl: config.apiUrl, issuer: realm.issuer, authorizationEndpoint: realm.authorizationEndpoint, clientId: realm.clientId, redirectUri: config.redirectUri, scope: 'openid global', extra,
    });
    const here = `${location.pathname}${location.search}${location.hash}`;
    sessionStorage.setItem(PENDING, JSON.stringify({ ...pending, returnTo: here, realm: realm.realm } satisfies Pending));
    location.assign(pending.url);
    return new Promise<never>(() => undefined);
}

/** Whether this URL is the authorization response (RFC 6749 §4.1.2) of a sign-in this tab started. */
function callbackParameters(): URLSearchParams | null {
    const parameters = new URLSearchParams(location.search);
    return parameters.has('state') && (parameters.has('code') || parameters.has('error')) ? parameters : null;
}

function takePending(): Pending | null {
    const raw = sessionStorage.getItem(PENDING);
    sessionStorage.removeItem(PENDING);
    return raw ? (JSON.parse(raw) as Pending) : null;
}

/** Tokens as kept in sessionStorage: `expires_in` is relative, so the time they were received goes with them. */
type StoredTokens = TokenSet & { receivedAt: number };

const store = (tokens: TokenSet): void => sessionStorage.setItem(TOKENS, JSON.stringify({ ...tokens, receivedAt: Date.now() } satisfies StoredTokens));

/** The stored tokens with `expires_in` counted from now, so a reload renews a token about to expire. */
function restore(raw: string): TokenSet {
    const stored = JSON.parse(raw) as StoredTokens;
    if (stored.expires_in === undefined) return stored;
    return { ...stored, expires_in: Math.max(0, stored.expires_in - (Date.now() - stored.receivedAt) / 1000) };
}

function tokenSource(config: ConsoleConfig, realm: RealmEndpoints, tokens: TokenSet): AuthorizationSource {
    const client = createClient({ baseUrl: config.apiUrl });
    return refreshingSession(client, tokens, {
        credentials: { clientId: realm.clientId },
        onRotate: store,
    });
}

/**
 * Completes a sign-in coming back from the authorization endpoint, if this load is one; throws
 * with the error the endpoint answered (access_denied, …) or a state mismatch (RFC 6749 §10.12).
 */
export async function completeSignIn(config: ConsoleConfig): Promise<void> {
    const parameters = callbackParameters();
    if (!parameters) return;
    const pending = takePending();
    if (!pending || pending.state !== parameters.get('state')) {
        history.replaceState(null, '', config.redirectUri);
        throw new Error(t('boot.signInExpired'));
    }
    history.replaceState(null, '', pending.returnTo);
    const error = parameters.get('error');
    if (error) throw new Error(parameters.get('error_description') ?? error);
    if (config.mode === 'token') {
        const tokens = await handleAuthorizationCallback(createClient({ baseUrl: config.apiUrl }), `${location.origin}?${parameters.toString()}`, pending);
        store(tokens);
    }
    markSignedIn(pending.realm);
}

/** The credential of this tab: the cookie (served) or the stored tokens (standalone); null when signed out. */
export async function currentSignIn(config: ConsoleConfig, realm: RealmEndpoints): Promise<SignedIn | null> {
    // the cookie or tokens of another realm's user are not this realm's sign-in
    if (signedInRealm() !== realm.realm) {
        sessionStorage.removeItem(TOKENS);
        return null;
    }
    if (config.mode === 'session') {
        // X-Requested-With: a 401 then challenges with Bearer, not Basic (no browser credentials dialog)
        const response = await fetch(`${config.apiUrl}/users/@me?fields=id`, { headers: { accept: 'application/json', 'x-requested-with': 'realmgate-console' } });
        return response.ok ? {} : null;
    }
    const raw = sessionStorage.getItem(TOKENS);
    if (!raw) return null;
    const auth = tokenSource(config, realm, restore(raw));
    try {
        await auth.authorization();
        return { auth };
    } catch (error) {
        if (isRealmgateError(error)) return null;
        throw error;
    }
}

/**
 * Forgets this tab's tokens and ends the session at the realm's end-session endpoint (RP-initiated
 * logout); the browser comes back to this console, whose tab still names the realm, so the next
 * screen is that realm's sign-in.
 */
export function signOut(config: ConsoleConfig, realm: RealmEndpoints): void {
    const raw = sessionStorage.getItem(TOKENS);
    sessionStorage.removeItem(TOKENS);
    forgetSignedIn();
    const url = new URL(realm.endSessionEndpoint);
    url.searchParams.set('client_id', realm.clientId);
    url.searchParams.set('post_logout_redirect_uri', config.redirectUri);
    const idToken = raw ? (JSON.parse(raw) as TokenSet).id_token : undefined;
    if (idToken) url.searchParams.set('id_token_hint', idToken);
    location.assign(url.toString());
}
