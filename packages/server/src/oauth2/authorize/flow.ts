import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { ConsoleSession } from '../../authn/console-session.js';
import { clientAccessAllows } from '../../authz/client-access.js';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import { findConsentedScopes, recordConsent } from '../../storage/consents.js';
import { mintCode } from './code.js';
import { targetOf, type AuthorizationRequest } from './request.js';
import { authorizationError, authorizationSuccess, type AuthorizationResponse } from './response.js';

export interface FlowDeps {
    db: Kysely<Database>;
    dialect: DialectName;
}

/** What the browser is shown next. */
export type Outcome =
    | { kind: 'sign-in' }
    | { kind: 'consent'; session: ConsoleSession; scopes: readonly string[] }
    | { kind: 'respond'; response: AuthorizationResponse };

export interface FlowOptions {
    /**
     * the session was just authenticated for this request (the sign-in form), or the consent form
     * was answered for it: prompt=login and max_age are satisfied
     */
    fresh: boolean;
    /** the consent form's answer */
    decision?: 'allow' | 'deny';
}

/**
 * Whether a session may answer the request without a new sign-in (single sign-on; OIDC Core
 * §3.1.2.1 prompt and max_age): it must belong to the client's realm (a realm B session is never used for a realm A
 * client), prompt=login forces a fresh sign-in, and max_age one when the last real sign-in is older.
 */
function sessionSatisfies(request: AuthorizationRequest, session: ConsoleSession | null, fresh: boolean): session is ConsoleSession {
    if (!session || session.realmId !== request.client.realm.id) return false;
    if (fresh) return true;
    if (request.prompt.has('login')) return false;
    if (request.maxAge !== null && Date.now() - session.authTime.getTime() > request.maxAge * 1000) return false;
    return true;
}

/** The client's access policy (spec client field accessPolicyId) must admit the user. */
export function accessAllows(db: Kysely<Database>, request: AuthorizationRequest, user: { id: string; realmName: string }): Promise<boolean> {
    return clientAccessAllows(db, { realmId: request.client.realm.id, accessPolicyId: request.client.accessPolicyId }, {
        id: user.id, type: 'user', realmId: request.client.realm.id, realmName: user.realmName, clientId: null,
    });
}

/** The scopes the user has not granted the client yet (none for a first-party client; all with prompt=consent). */
async function scopesNeedingConsent(db: Kysely<Database>, request: AuthorizationRequest, userId: string): Promise<string[]> {
    if (request.client.firstParty) return [];
    if (request.prompt.has('consent')) return [...request.scopes];
    const granted = new Set(await findConsentedScopes(db, userId, request.client.id));
    return request.scopes.filter((scope) => !granted.has(scope));
}

/**
 * The next step of a browser authorization request (single sign-on, consent, the client's access policy): sign in, consent, or
 * the response at the redirect URI — a code, or login_required / consent_required (prompt=none,
 * OIDC Core §3.1.2.6) / access_denied (a denial by the user or by the client's access policy).
 */
export async function decide(deps: FlowDeps, request: AuthorizationRequest, session: ConsoleSession | null, options: FlowOptions): Promise<Outcome> {
    const error = (code: ErrorCode, message: string): Outcome => ({ kind: 'respond', response: authorizationError(targetOf(request), code, message) });
    if (!sessionSatisfies(request, session, options.fresh)) {
        if (request.prompt.has('none')) return error(ErrorCode.LOGIN_REQUIRED, 'The user is not signed in.');
        return { kind: 'sign-in' };
    }
    if (!await accessAllows(deps.db, request, { id: session.userId, realmName: session.realmName })) {
        return error(ErrorCode.ACCESS_DENIED, "The client's access policy does not admit this user.");
    }
    if (options.decision === 'deny') return error(ErrorCode.ACCESS_DENIED, 'The user denied the request.');
    if (options.decision === 'allow') {
        await recordConsent(deps.db, deps.dialect, { userId: session.userId, clientId: request.client.id, realmId: request.client.realm.id, scopes: request.scopes });
    } else {
        const missing = await scopesNeedingConsent(deps.db, request, session.userId);
        if (missing.length > 0) {
            if (request.prompt.has('none')) return error(ErrorCode.CONSENT_REQUIRED, 'The user has not granted the client these scopes.');
            return { kind: 'consent', session, scopes: request.scopes };
        }
    }
    const code = await mintCode(deps.db, deps.dialect, request, { userId: session.userId, sessionId: session.id, authTime: session.authTime, acr: session.acr });
    return { kind: 'respond', response: authorizationSuccess(targetOf(request), code) };
}
