import type { DecisionStrategy } from '@realmgate/core';
import { andLowered, orLowered, type Lowered } from './condition.js';

/**
 * Combine lowered outcomes under a decision strategy. Consensus over row conditions has no
 * compact condition form; it settles when the conditions cannot change the count and is
 * otherwise unlowerable (null → post), never guessed.
 */
export function combineLowered(items: readonly Lowered[], strategy: DecisionStrategy): Lowered {
    if (items.length === 0) {
        return true;
    }
    if (strategy === 'affirmative') {
        return orLowered(items);
    }
    if (strategy === 'consensus') {
        let pass = 0;
        let fail = 0;
        let open = 0;
        for (const item of items) {
            if (item === true) pass++;
            else if (item === false) fail++;
            else open++;
        }
        // settled only when no outcome of the open items can change the count's verdict
        if (pass > fail + open) return true;
        if (pass + open <= fail) return false;
        return null;
    }
    return andLowered(items);
}
