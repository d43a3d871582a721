import { createHash } from 'node:crypto';

/**
 * Single-use identifiers shared by every replica: a client assertion's `jti` (RFC 7523 §3 item 7)
 * and a DPoP proof's `jti` (RFC 9449 §11.1). `claim` answers true the first time an identifier is
 * seen and false for every replay until `expiresAt`, after which the identifier's own lifetime
 * check refuses it anyway.
 */
export interface ReplayGuard {
    claim(identifier: ReplayIdentifier, expiresAt: Date): Promise<boolean>;
}

/** What makes an identifier unique: its kind, the realm, who minted it (a client id or a key thumbprint) and its value. */
export interface ReplayIdentifier {
    kind: 'client_assertion' | 'dpop_proof' | 'request_object';
    realmId: string;
    issuer: string;
    jti: string;
}

/** The stored key: a digest, so the store holds no client data and every key has one length. */
export function replayKey(identifier: ReplayIdentifier): string {
    return createHash('sha256').update(`${identifier.kind}\n${identifier.realmId}\n${identifier.issuer}\n${identifier.jti}`).digest('hex');
}

/** The database's guard (storage/replay-guards.ts), the default: every replica shares it. */
export function createRecordingReplayGuard(record: (key: string, expiresAt: Date) => Promise<boolean>): ReplayGuard {
    return { claim: (identifier, expiresAt) => record(replayKey(identifier), expiresAt) };
}

/** The Redis command the guard needs: SET key value NX PX ttl answers 'OK' only for the first. */
export interface SetIfAbsent {
    setIfAbsent(key: string, ttlMs: number): Promise<boolean>;
}

/**
 * With REDIS_URL, identifiers are claimed in Redis (one round trip, no row to sweep). While Redis
 * does not answer, the database guard decides: never an in-process memory, which another replica
 * cannot see, so a replay is refused during an outage too. An identifier claimed in Redis before
 * the outage and replayed during it is the one gap; the proof's short lifetime bounds it.
 */
export function createRedisReplayGuard(redis: SetIfAbsent, prefix: string, fallback: ReplayGuard, onOutage: (error: unknown) => void): ReplayGuard {
    // reported once per outage, not per request
    let failing = false;
    return {
        async claim(identifier, expiresAt) {
            const ttl = Math.max(1, expiresAt.getTime() - Date.now());
            try {
                const first = await redis.setIfAbsent(`${prefix}replay:${replayKey(identifier)}`, ttl);
                failing = false;
                return first;
            } catch (error) {
                if (!failing) onOutage(error);
                failing = true;
                return fallback.claim(identifier, expiresAt);
            }
        },
    };
}
