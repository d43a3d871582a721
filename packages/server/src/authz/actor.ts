import type { PolicyIdentity } from '@realmgate/access';

/** Who is calling, as authentication resolved it. */
export interface Actor {
    /** null: an anonymous caller */
    identity: PolicyIdentity | null;
    /** the client a bearer token was issued to (spec Authentication rule 8); null when not narrowed */
    tokenClientId: string | null;
    /** how the caller authenticated */
    method: 'basic' | 'bearer' | 'none';
}

export const ANONYMOUS: Actor = Object.freeze({ identity: null, tokenClientId: null, method: 'none' });
