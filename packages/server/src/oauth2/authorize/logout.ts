import { isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { ConsoleSession } from '../../authn/console-session.js';
import type { Database } from '../../db/schema.js';
import { findAuthorizationClient, findPageRealm, type AuthorizationClient, type PageRealmRow } from '../../storage/authorize-lookups.js';
import { findSessionLink } from '../../storage/console-sessions.js';
import { verifyIdTokenHint, type IdTokenHint } from './id-token-hint.js';
import { isRegisteredUri } from './request.js';

/** OIDC RP-Initiated Logout 1.0 §2: the parameters of a logout request. */
export interface LogoutParams {
    id_token_hint?: string;
    post_logout_redirect_uri?: string;
    state?: string;
    client_id?: string;
    /** §2: the languages of the pages the OP shows, as at the authorization endpoint */
    ui_locales?: string;
}

export type LogoutRequest =
    | { ok: false; message: string; realm: PageRealmRow | null }
    | {
        ok: true;
        hint: IdTokenHint | null;
        client: AuthorizationClient | null;
        /** the validated post-logout redirect URI, with `state` to echo */
        redirect: { uri: string; state: string | undefined } | null;
        realm: PageRealmRow | null;
    };

export function readLogoutParams(source: unknown): LogoutParams | null {
    const params: Record<string, string> = {};
    if (typeof source !== 'object' || source === null) return params;
    for (const name of ['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id', 'ui_locales'] as const) {
        const value = (source as Record<string, unknown>)[name];
        if (value === undefined) continue;
        if (typeof value !== 'string' || value.length > 8192) return null;
        params[name] = value;
    }
    return params;
}

/**
 * Validates a logout request (OIDC RP-Initiated Logout 1.0 §2, §3): a hint that does not verify is
 * no hint (the user confirms instead); the client is the hint's audience or `client_id` (both must
 * agree); `post_logout_redirect_uri` must be exactly one of that client's postLogoutRedirectUri
 * entries, else an error page — the endpoint is never an open redirector (RFC 9700 §4.11).
 */
export async function validateLogout(db: Kysely<Database>, publicUrl: string, params: LogoutParams, session: ConsoleSession | null): Promise<LogoutRequest> {
    const hint = params.id_token_hint ? await verifyIdTokenHint(db, publicUrl, params.id_token_hint) : null;
    const clientId = hint?.clientId ?? params.client_id;
    if (hint && params.client_id !== undefined && params.client_id.toLowerCase() !== hint.clientId) {
        return { ok: false, message: 'client_id does not match the id_token_hint.', realm: null };
    }
    const client = clientId !== undefined && isUuid(clientId) ? await findAuthorizationClient(db, clientId.toLowerCase()) ?? null : null;
    const realm = client?.realm ?? (hint ? await findPageRealm(db, hint.realmId) : session ? await findPageRealm(db, session.realmId) : undefined) ?? null;
    let redirect: { uri: string; state: string | undefined } | null = null;
    if (params.post_logout_redirect_uri !== undefined) {
        if (!client?.active || !isRegisteredUri(client.postLogoutRedirectUri, params.post_logout_redirect_uri)) {
            return { ok: false, message: 'post_logout_redirect_uri is not registered for this client.', realm };
        }
        redirect = { uri: params.post_logout_redirect_uri, state: params.state };
    }
    return { ok: true, hint, client, redirect, realm };
}

/**
 * The sessions a verified hint ends without asking, or null when the End-User must be asked.
 * OIDC RP-Initiated Logout 1.0 §2: an id_token_hint proves who the relying party believes signed
 * in, not that this browser is theirs — anyone holding the token (an `<img>` on any page, an
 * expired hint) could otherwise end that user's sessions. So the hint acts alone only when this
 * browser's own session is the hint's session of the hint's user: its `sid`, or the browser session
 * its `sid` was signed in through (an application session's parent). Then the `sid` session, its browser
 * session and the cookie's are revoked through the SessionStore (logout cascade, back-channel
 * notices).
 */
export async function sessionsEndedByHint(db: Kysely<Database>, hint: IdTokenHint, cookie: ConsoleSession | null): Promise<string[] | null> {
    if (!cookie || cookie.userId !== hint.sub || cookie.realmId !== hint.realmId || hint.sid === null || !isUuid(hint.sid)) return null;
    const sid = hint.sid.toLowerCase();
    if (sid === cookie.id) return [cookie.id];
    const link = await findSessionLink(db, sid);
    if (!link || link.sub !== hint.sub || link.realmId !== hint.realmId || link.parentId !== cookie.id) return null;
    return [sid, cookie.id];
}
