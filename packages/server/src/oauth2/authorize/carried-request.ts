import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import type { RequestOrigin } from './request.js';

/**
 * The hidden field that carries a pushed (RFC 9126) or signed (RFC 9101) request through the
 * sign-in, second-factor and consent forms and an upstream round trip. The reference was redeemed
 * once (RFC 9126 §4: single use) and a request object's parameters are the only ones that count
 * (RFC 9101 §6.3), so the forms cannot carry them as plain fields a browser could edit: they are
 * sealed (AES-256-GCM under the realm's encryption key, secrets/secret-box.ts, which every replica
 * shares) with the client they belong to, their origin and a deadline.
 */
export const CARRIED_FIELD = 'sealed_request';

/** Seconds a carried request stays good: long enough to sign in with a second factor, short enough to bound a copied form. */
const CARRIED_LIFETIME_SECONDS = 900;

interface Sealed {
    clientId: string;
    params: Record<string, string>;
    origin: RequestOrigin;
    /** epoch milliseconds */
    expiresAt: number;
}

export interface CarriedRequestDeps {
    db: Kysely<Database>;
    secrets: SecretBox;
    clock: () => number;
}

/** The fields the forms carry for a request whose parameters came pushed or signed. */
export async function sealRequest(deps: CarriedRequestDeps, realmId: string, clientId: string, params: Record<string, string>, origin: RequestOrigin): Promise<Record<string, string>> {
    const sealed: Sealed = { clientId, params, origin, expiresAt: deps.clock() + CARRIED_LIFETIME_SECONDS * 1000 };
    return { client_id: clientId, [CARRIED_FIELD]: await deps.secrets.encrypt(deps.db, realmId, JSON.stringify(sealed)) };
}

/** The carried request of a form, if its seal opens, names this client and is in time; null otherwise. */
export async function openRequest(deps: CarriedRequestDeps, value: string, clientId: string): Promise<{ params: Record<string, string>; origin: RequestOrigin } | null> {
    if (!deps.secrets.isEnvelope(value)) return null;
    let sealed: Sealed;
    try {
        sealed = JSON.parse(await deps.secrets.decrypt(deps.db, value)) as Sealed;
    } catch {
        return null;
    }
    if (sealed.clientId !== clientId || sealed.expiresAt <= deps.clock()) return null;
    return { params: sealed.params, origin: sealed.origin };
}
