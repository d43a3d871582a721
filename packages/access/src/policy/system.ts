import type { CanonicalPolicy } from './types.js';

/**
 * The canonical tree of the built-in global policy `system.default` (API.md §5): the caller has an
 * identity AND holds a grant of the definition whose reach and junction policies admit the
 * resource. Bootstrap binds it to every provisioned permission (spec model line 3).
 */
export function createSystemDefaultPolicy(): CanonicalPolicy {
    return {
        type: 'composite',
        invert: false,
        decisionStrategy: 'unanimous',
        children: [
            { type: 'identity', invert: false },
            { type: 'permissionBinding', invert: false },
        ],
    };
}
