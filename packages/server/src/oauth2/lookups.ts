import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { BoundedCache } from '../cache/bounded-cache.js';
import type { ClientCredentials } from '../storage/clients.js';
import type { RealmRef } from '../storage/realms.js';

/**
 * A client that authenticated (none of a known client's authentications read the
 * database). Its secret is never kept: a confidential client's row carries `secret: ''` (which
 * verifies nothing, secrets/client-secret-verifier.ts) and the secret it proved is remembered only
 * as an HMAC-SHA256 under a key of this process that is never stored nor logged.
 */
export interface RememberedClient {
    row: ClientCredentials;
    /** HMAC of the secret that authenticated; null for a public client (identified, not authenticated) */
    digest: Buffer | null;
}

/**
 * The protocol endpoints' lookups served from memory (fewer database round trips on the hot paths): realms by id, name and
 * owning client, and clients that authenticated. Emptied on every replica by the bus before a
 * write to a realm or client answers (wire.ts); entries are only ever added from committed reads.
 */
export interface ProtocolLookups {
    /** keyed `id:<uuid>`, `name:<name>` and `client:<client id>` (the realm a client belongs to) */
    realms: BoundedCache<RealmRef>;
    /** keyed `<realm id>/<client id or name as presented>` */
    clients: BoundedCache<RememberedClient>;
    /** the keyed digest of a presented secret */
    digest(secret: string): Buffer;
}

export function createProtocolLookups(realms: BoundedCache<RealmRef>, clients: BoundedCache<RememberedClient>): ProtocolLookups {
    // one key per process: a digest is worthless outside it, and it dies with the process
    const key = randomBytes(32);
    return { realms, clients, digest: (secret) => createHmac('sha256', key).update(secret, 'utf8').digest() };
}

/** Whether a presented secret is the one a remembered client authenticated with (constant time). */
export function provesRemembered(lookups: ProtocolLookups, remembered: RememberedClient, secret: string): boolean {
    return remembered.digest !== null && timingSafeEqual(remembered.digest, lookups.digest(secret));
}
