/**
 * Spec Authentication rule 16: with the failed-login throttle on, concurrent login attempts for
 * one account from one address beyond a threshold are refused while the others run (`retryAfter`
 * 1). The throttle turns on for an account and address with a failed attempt and stays on for a
 * minute after the last one, so a client that never fails (a load of parallel client_credentials
 * requests, a script sending Basic) is never held up. In-flight attempts are counted in process:
 * what the gate bounds is the password hashing one replica does at once for one account, and a
 * crashed replica must not leave a shared counter stuck.
 */
export interface LoginGate {
    /** false when the throttle is on for the key and `threshold` attempts are already running */
    enter(key: string): boolean;
    leave(key: string): void;
    /** a failed attempt for the key: its throttle is on for the next minute */
    failed(key: string): void;
}

const THROTTLE_MS = 60_000;

export function createLoginGate(threshold: number, clock: () => number = Date.now): LoginGate {
    const running = new Map<string, number>();
    /** key → when its throttle turns off */
    const throttled = new Map<string, number>();

    const isThrottled = (key: string): boolean => {
        const until = throttled.get(key);
        if (until === undefined) return false;
        if (until > clock()) return true;
        throttled.delete(key);
        return false;
    };

    return {
        enter(key) {
            const count = running.get(key) ?? 0;
            if (count >= threshold && isThrottled(key)) return false;
            running.set(key, count + 1);
            return true;
        },
        leave(key) {
            const count = running.get(key) ?? 0;
            if (count <= 1) running.delete(key);
            else running.set(key, count - 1);
        },
        failed(key) {
            const now = clock();
            if (throttled.size > 10_000) for (const [name, until] of throttled) if (until <= now) throttled.delete(name);
            throttled.set(key, now + THROTTLE_MS);
        },
    };
}
