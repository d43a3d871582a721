import { invalidInput } from '../errors.js';
import type { PolicyEngine } from '../policy/engine.js';
import { defaultPolicyEngine } from '../policy/registry.js';

function toEpochMs(now: Date | number): number {
    const ms = now instanceof Date ? now.getTime() : now;
    if (typeof ms !== 'number' || !Number.isFinite(ms)) throw invalidInput(['now'], 'expected a valid Date or epoch milliseconds');
    return ms;
}

/**
 * The earliest instant after `now` at which a date or time node anywhere in the tree could change
 * the tree's outcome, or null when time alone never changes it. The answer may be early (a
 * boundary where the outcome happens to stay the same), never late, so it is safe as a cache
 * expiry. The tree is validated first; a malformed one throws access_invalid_policy.
 */
export function getNextPolicyChange(policy: unknown, now: Date | number, engine: PolicyEngine = defaultPolicyEngine): Date | null {
    const next = engine.nextChange(policy, toEpochMs(now));
    return next === null ? null : new Date(next);
}

/**
 * Whole seconds until the earliest change over several trees, rounded up so a response cached
 * that long never outlives a decision; null when none of them depends on time (no max-age limit).
 */
export function secondsUntilNextPolicyChange(
    policies: readonly unknown[],
    now: Date | number,
    engine: PolicyEngine = defaultPolicyEngine,
): number | null {
    if (!Array.isArray(policies)) throw invalidInput(['policies'], 'expected a list of policies');
    const from = toEpochMs(now);
    let earliest: number | null = null;
    for (const [index, input] of policies.entries()) {
        // validated here first so an error names the tree's position in the list
        const next = engine.nextChange(engine.validate(input, ['policies', index]), from);
        if (next !== null && (earliest === null || next < earliest)) earliest = next;
    }
    return earliest === null ? null : Math.ceil((earliest - from) / 1000);
}
