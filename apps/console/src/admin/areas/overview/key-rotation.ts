/**
 * Which of a realm's signing keys are due for rotation. A key carries no expiry date (API.md §3
 * `/keys`), so the console judges by age: NIST SP 800-57 Part 1 §5.3 bounds how long a key may be
 * used (its cryptoperiod), and operators rotate signing keys on a schedule within it. 90 days is the
 * schedule this console suggests; a key older than that is listed, never disabled for the operator.
 */
export const SIGNING_KEY_ROTATION_DAYS = 90;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface KeyAge { id?: string | null; use?: string | null; status?: string | null; algorithm?: string | null; createdAt?: string | null }

export interface DueKey { id: string; algorithm: string | null; ageDays: number }

/** Whole days from `createdAt` to `now`; null when the date is missing or unreadable. */
export function ageInDays(createdAt: string | null | undefined, now: Date): number | null {
    if (!createdAt) return null;
    const created = Date.parse(createdAt);
    if (Number.isNaN(created)) return null;
    return Math.floor((now.getTime() - created) / DAY_MS);
}

/** The active signing keys created more than SIGNING_KEY_ROTATION_DAYS before `now`, oldest first. */
export function keysDueForRotation(keys: readonly KeyAge[], now: Date): DueKey[] {
    const due: DueKey[] = [];
    for (const key of keys) {
        if (key.use !== 'sig' || key.status !== 'active' || !key.id) continue;
        const ageDays = ageInDays(key.createdAt, now);
        if (ageDays !== null && ageDays > SIGNING_KEY_ROTATION_DAYS) due.push({ id: key.id, algorithm: key.algorithm ?? null, ageDays });
    }
    return due.sort((a, b) => b.ageDays - a.ageDays);
}
