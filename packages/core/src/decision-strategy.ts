/**
 * How several policy outcomes combine.
 * unanimous: every one passes; affirmative: at least one passes;
 * consensus: more pass than fail (a tie fails).
 */
export const DecisionStrategy = {
    UNANIMOUS: 'unanimous',
    AFFIRMATIVE: 'affirmative',
    CONSENSUS: 'consensus',
} as const;

export type DecisionStrategy = typeof DecisionStrategy[keyof typeof DecisionStrategy];

export const DECISION_STRATEGIES: readonly DecisionStrategy[] = Object.freeze(Object.values(DecisionStrategy));

export function isDecisionStrategy(value: unknown): value is DecisionStrategy {
    return typeof value === 'string' && (DECISION_STRATEGIES as readonly string[]).includes(value);
}
