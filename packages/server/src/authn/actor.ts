import type { PolicyIdentity } from '@realmgate/access';

/** Who is calling, as authentication resolved it. */
export interface Actor {
    /** null: an anonymous caller */
    identity: PolicyIdentity | null;
    /** the client a bearer token was issued to (spec Authentication rule 8); null when not narrowed */
    tokenClientId: string | null;
    /** how the caller authenticated; `session`: the console-session cookie (authn/console-session.ts) */
    method: 'basic' | 'bearer' | 'session' | 'none';
    /**
     * a bearer without scope `global`: the caller stays identified (`@me`), but authorization
     * evaluates it without identity data or grants (spec check-route rule 1, consumer rule 12)
     */
    identityWithheld?: boolean;
    /** the session of a bearer token (spec States: a password change keeps the current session) */
    sessionId?: string;
    /**
     * a user bearer's own row, read with its token's state in the same query (`GET
     * /users/@me` in one round trip); its readable columns only, never a hash
     */
    ownRow?: Readonly<Record<string, unknown>>;
    /** the thumbprint of the DPoP key a sender-constrained token was proven with (RFC 9449 §7) */
    dpopJkt?: string;
}

export const ANONYMOUS: Actor = Object.freeze({ identity: null, tokenClientId: null, method: 'none' });
