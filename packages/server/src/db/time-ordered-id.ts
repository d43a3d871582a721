import { randomFillSync } from 'node:crypto';

/** random bytes drawn in blocks: one system call per 512 ids rather than one per id */
const POOL_IDS = 512;
const RANDOM_BYTES = 10;
const pool = Buffer.allocUnsafe(POOL_IDS * RANDOM_BYTES);
let offset = pool.length;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * A UUID version 7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then 74 random bits. For the
 * rows written on every token (sessions, their refresh tokens, the event log): a random (v4)
 * primary key lands each insert on a random B-tree page, so a batch of 100 rows dirties about 100
 * pages of the primary-key index (each written whole to SQLite's WAL, PostgreSQL's WAL and
 * InnoDB's buffer pool); time-ordered keys land together on the rightmost pages. These ids are
 * not credentials — a console-session cookie carries its own 256-bit secret (authn/console-session.ts),
 * a refresh token is a signed JWT — so 74 random bits (against v4's 122) cost no security, and the
 * creation time the id reveals is the row's own `created_at`, readable beside it.
 */
export function timeOrderedId(now: number = Date.now()): string {
    if (offset + RANDOM_BYTES > pool.length) {
        randomFillSync(pool);
        offset = 0;
    }
    const r = offset;
    offset += RANDOM_BYTES;
    // 48-bit big-endian milliseconds: the high 16 bits, then the low 32
    const high = Math.floor(now / 2 ** 32);
    const low = now >>> 0;
    return HEX[(high >>> 8) & 0xff]! + HEX[high & 0xff]! + HEX[low >>> 24]! + HEX[(low >>> 16) & 0xff]! + '-'
        + HEX[(low >>> 8) & 0xff]! + HEX[low & 0xff]! + '-'
        // version 7 in the high nibble, then 12 random bits (rand_a)
        + HEX[0x70 | (pool[r]! & 0x0f)]! + HEX[pool[r + 1]!]! + '-'
        // variant 0b10 in the two high bits, then 62 random bits (rand_b)
        + HEX[0x80 | (pool[r + 2]! & 0x3f)]! + HEX[pool[r + 3]!]! + '-'
        + HEX[pool[r + 4]!]! + HEX[pool[r + 5]!]! + HEX[pool[r + 6]!]! + HEX[pool[r + 7]!]! + HEX[pool[r + 8]!]! + HEX[pool[r + 9]!]!;
}
