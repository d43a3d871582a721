/**
 * A tour of @realmgate/access: build an evaluator from a catalog, a token's grants and its
 * identity, then ask for decisions the way a server or a browser client would.
 *
 *     npm run build && node packages/access/examples/evaluate.mjs
 */
import { BuiltInPolicyType, createAuthorizationEvaluator, createSystemDefaultPolicy, isPermissionDeniedError } from '@realmgate/access';

const REALM_A = 'realm-a';
const REALM_B = 'realm-b';

// What GET /authorization returns: every policy tree by id, and the permission definitions naming them.
const catalog = {
    policies: {
        // the built-in tree: the caller has an identity AND holds a grant of the definition
        'system.default': createSystemDefaultPolicy(),
        // a junction policy a grant can carry: only clients whose name starts with "app-"
        'app-clients-only': { type: 'attributes', query: { name: { $startsWith: 'app-' } } },
    },
    permissions: [
        { name: 'client_read', realm_id: null, client_id: null, decision_strategy: 'unanimous', policies: ['system.default'] },
        { name: 'user_read', realm_id: null, client_id: null, decision_strategy: 'unanimous', policies: ['system.default'] },
    ],
};

// What introspecting the caller's token returns: its subject and its grants.
const identity = { id: 'user-1', type: 'user', realmId: REALM_A, realmName: 'alpha', clientId: null };
const grants = [
    // users of realm A and global users
    { name: 'user_read', realm_id: null, client_id: null, realm_scope: 'ownOrNull', policies: [] },
    // clients of realm A only, and only those the junction policy admits
    { name: 'client_read', realm_id: null, client_id: null, realm_scope: 'own', policies: ['app-clients-only'] },
];

const evaluator = createAuthorizationEvaluator({ catalog, grants, identity });

/** evaluate() resolves when allowed and rejects with a permission_denied error otherwise. */
async function verdict(decide) {
    try {
        await decide();
        return 'allowed';
    } catch (error) {
        if (isPermissionDeniedError(error)) return 'denied';
        throw error;
    }
}

const REALM_MATCH = BuiltInPolicyType.REALM_MATCH;
const ATTRIBUTES = BuiltInPolicyType.ATTRIBUTES;

// The resource realm always goes in data.realmMatch: the row's realm id, or null for a global row.
const decisions = [
    ['user_read, a row of realm A (own realm)', () => evaluator.evaluate({ name: 'user_read', data: { [REALM_MATCH]: REALM_A } })],
    ['user_read, a row of realm B (foreign realm)', () => evaluator.evaluate({ name: 'user_read', data: { [REALM_MATCH]: REALM_B } })],
    ['user_read, a global row (realm null)', () => evaluator.evaluate({ name: 'user_read', data: { [REALM_MATCH]: null } })],
    ['client_read, a global row (own excludes it)', () => evaluator.evaluate({ name: 'client_read', data: { [REALM_MATCH]: null } })],
    [
        'client_read, realm A client "app-portal"',
        () => evaluator.evaluate({ name: 'client_read', data: { [REALM_MATCH]: REALM_A, [ATTRIBUTES]: { name: 'app-portal' } } }),
    ],
    [
        'client_read, realm A client "admin-cli"',
        () => evaluator.evaluate({ name: 'client_read', data: { [REALM_MATCH]: REALM_A, [ATTRIBUTES]: { name: 'admin-cli' } } }),
    ],
    // before the row is loaded: policies that need it are pending, and preEvaluate lets pending pass
    ['client_read, preEvaluate without the row', () => evaluator.preEvaluate({ name: 'client_read' })],
    ['client_read, evaluate without the row', () => evaluator.evaluate({ name: 'client_read' })],
];

console.log(`identity: ${identity.type} ${identity.id} in ${identity.realmId}\n`);
const width = Math.max(...decisions.map(([label]) => label.length));
for (const [label, decide] of decisions) {
    console.log(`${label.padEnd(width)}  ${await verdict(decide)}`);
}

/** A compile condition as readable infix text; a server translates the same tree to SQL instead. */
function describe(condition) {
    switch (condition.operator) {
        case 'and':
        case 'or':
            return condition.conditions.map((child) => `(${describe(child)})`).join(` ${condition.operator} `);
        case 'not':
            return `not (${describe(condition.condition)})`;
        default:
            return `${condition.field} ${condition.operator} ${JSON.stringify(condition.value)}`;
    }
}

// A collection read: compile turns the decision into a row condition the server ANDs into its
// row and count queries (allow: no filter, deny: no rows, post: refuse, never read unrestricted).
// Realm columns match the caller's realm by id or by name, hence both values.
console.log('\ncompile (collection reads):');
for (const name of ['user_read', 'client_read']) {
    const result = evaluator.compile({ name });
    const condition = result.type === 'conditional' ? `  where ${describe(result.condition)}` : '';
    console.log(`${name.padEnd(11)}  ${result.type}${condition}`);
}
