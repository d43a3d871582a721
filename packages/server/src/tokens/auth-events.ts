import type { EndedSession } from '../storage/session-revocation.js';
import type { DetachedEventLog } from '../storage/events.js';

/**
 * The event log's sign-in, token and session entries (spec Events 1): scope
 * `auth`, written beside the request (never in its transaction, never failing it). Names follow
 * the spec's `clientSecretRotated`; the entity type is the identity or the session concerned.
 * `data` holds how it happened, never what was typed (a name may be an email, spec Events 5).
 */
export const AUTH_EVENT = {
    signedIn: 'signedIn',
    signInFailed: 'signInFailed',
    /** too many wrong second factors: the user's second factor is locked for a while (authn/ticket-factor.ts) */
    secondFactorLocked: 'secondFactorLocked',
    /** a passkey signed in or proved a second factor (authn/passkey-assertion.ts): which authenticator, never key material */
    passkeyUsed: 'passkeyUsed',
    /** WebAuthn §7.2 step 21: a passkey's signature counter did not grow — possibly a cloned authenticator; refused */
    passkeyCloneSuspected: 'passkeyCloneSuspected',
    tokenIssued: 'tokenIssued',
    /** a login opened a session: the `sessions` statistic counts these (`<entity>.created`) */
    sessionCreated: 'session.created',
    sessionEnded: 'sessionEnded',
} as const;

export type SignInMethod = 'password' | 'basic' | 'form' | 'client';

export interface AuthEventRequest {
    ip: string | null;
    method: string | null;
    path: string | null;
}

/** The entries of one issuance: the grant, and for a new session its creation and (password) sign-in. */
export function recordIssuance(events: DetachedEventLog, issued: {
    grantType: string;
    subject: { id: string; kind: 'user' | 'client'; realmId: string };
    clientId: string | null;
    sessionId: string;
    newSession: boolean;
    /** the issuance is a sign-in with a secret (password grant, with or without its second factor; client credentials) */
    signIn: SignInMethod | null;
    request: AuthEventRequest | null;
}): void {
    const common = { scope: 'auth', realmId: issued.subject.realmId, actorType: issued.subject.kind, actorId: issued.subject.id, request: issued.request };
    const data = { grantType: issued.grantType, clientId: issued.clientId };
    if (issued.signIn !== null) {
        events.record({ ...common, name: AUTH_EVENT.signedIn, refType: issued.subject.kind, refId: issued.subject.id, data: { method: issued.signIn, ...data } });
    }
    if (issued.newSession) events.record({ ...common, name: AUTH_EVENT.sessionCreated, refType: 'session', refId: issued.sessionId, data });
    events.record({ ...common, name: AUTH_EVENT.tokenIssued, refType: 'session', refId: issued.sessionId, data });
}

/** A session ended by a revocation (logout, DELETE /sessions, a password change, a deactivation…); expiry is not one. */
export function recordSessionEnds(events: DetachedEventLog, ended: readonly EndedSession[]): void {
    for (const session of ended) {
        events.record({
            name: AUTH_EVENT.sessionEnded, scope: 'auth', refType: 'session', refId: session.id, realmId: session.realmId,
            data: { subKind: session.subKind, clientId: session.clientId },
        });
    }
}
