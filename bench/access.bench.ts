/**
 * @realmgate/access hot paths: per-call decisions (evaluate, allows, preEvaluate, compile) and
 * building an evaluator from a large catalog, the per-request cost a server pays per token.
 */
import {
    createSystemDefaultPolicy,
    BuiltInPolicyType,
    createAuthorizationEvaluator,
    type AuthorizationCatalog,
    type AuthorizationEvaluator,
    type AuthorizationGrant,
    type PolicyIdentity,
} from '@realmgate/access';
import { elapsedMs, latency, nowNs, throughput, timeRounds, type BenchOptions, type BenchResult } from './harness.js';

const REALM_A = 'realm-a';
const REALM_B = 'realm-b';
const CALLS_TARGET = 1_000_000;
const CREATION_TARGET_MS = 2;
const DEFINITIONS = 1_000;
const GRANTS = 200;
/** at most this many cloned catalogs are held at once for a cold-creation round */
const MAX_COLD_PER_ROUND = 64;

const SYSTEM_DEFAULT = createSystemDefaultPolicy();

const USER: PolicyIdentity = { id: 'user-1', type: 'user', realmId: REALM_A, realmName: 'alpha', clientId: null };

function oneGrantInput(): { catalog: AuthorizationCatalog; grants: AuthorizationGrant[] } {
    return {
        catalog: {
            policies: { 'system.default': SYSTEM_DEFAULT },
            permissions: [{ name: 'user_read', realm_id: null, client_id: null, decision_strategy: 'unanimous', policies: ['system.default'] }],
        },
        grants: [{ name: 'user_read', realm_id: null, client_id: null, realm_scope: 'own', policies: [] }],
    };
}

/**
 * 1,000 definitions over a few realms and clients, most under system.default; 200 grants spread
 * evenly over them, some carrying junction policies, so binding exercises every branch.
 */
function largeInput(): { catalog: AuthorizationCatalog; grants: AuthorizationGrant[] } {
    const realms = [null, REALM_A, REALM_B];
    const permissions: AuthorizationCatalog['permissions'] = [];
    for (let i = 0; i < DEFINITIONS; i++) {
        permissions.push({
            name: `resource_${String(i).padStart(4, '0')}_read`,
            realm_id: realms[i % realms.length]!,
            client_id: i % 10 === 9 ? 'client-admin' : null,
            decision_strategy: i % 50 === 0 ? 'affirmative' : 'unanimous',
            // a few definitions are unrestricted, as public reads are
            policies: i % 100 === 0 ? [] : ['system.default'],
        });
    }
    const grants: AuthorizationGrant[] = [];
    const step = DEFINITIONS / GRANTS;
    for (let g = 0; g < GRANTS; g++) {
        const definition = permissions[g * step]!;
        const policies: string[] = [];
        if (g % 4 === 1) policies.push('junction.attributes');
        if (g % 5 === 2) policies.push('junction.date');
        grants.push({
            name: definition.name,
            realm_id: definition.realm_id,
            client_id: definition.client_id,
            realm_scope: g % 3 === 0 ? 'ownOrNull' : 'own',
            policies,
        });
    }
    return {
        catalog: {
            policies: {
                'system.default': SYSTEM_DEFAULT,
                'junction.attributes': { type: 'attributes', query: { name: { $startsWith: 'a' } } },
                'junction.date': { type: 'date', start: '2020-01-01' },
            },
            permissions,
        },
        grants,
    };
}

/** A benchmark that measures the deny path by mistake is worse than none: check the verdicts first. */
async function checkVerdicts(evaluator: AuthorizationEvaluator): Promise<void> {
    const data = { [BuiltInPolicyType.REALM_MATCH]: REALM_A };
    if (!evaluator.allows({ name: 'user_read', data })) throw new Error('bench setup: user_read should be allowed');
    if (evaluator.allows({ name: 'user_read', data: { [BuiltInPolicyType.REALM_MATCH]: REALM_B } })) {
        throw new Error('bench setup: a foreign realm row should be denied');
    }
    await evaluator.evaluate({ name: 'user_read', data });
    await evaluator.preEvaluate({ name: 'user_read' });
    const verdict = evaluator.compile({ name: 'user_read' });
    if (verdict.type !== 'conditional') throw new Error(`bench setup: compile gave ${verdict.type}, expected conditional`);
}

export async function benchDecisions(options: BenchOptions): Promise<BenchResult[]> {
    const evaluator = createAuthorizationEvaluator({ ...oneGrantInput(), identity: USER });
    await checkVerdicts(evaluator);
    // one context object reused, as a server reuses a route's context shape
    const ctx = { name: 'user_read', data: { [BuiltInPolicyType.REALM_MATCH]: REALM_A } };
    const preCtx = { name: 'user_read' };
    // a sink the optimiser cannot prove unused
    let sink = 0;

    const allows = await timeRounds((count) => {
        const start = nowNs();
        for (let i = 0; i < count; i++) if (evaluator.allows(ctx)) sink++;
        return elapsedMs(start);
    }, options);
    const evaluate = await timeRounds(async (count) => {
        const start = nowNs();
        for (let i = 0; i < count; i++) await evaluator.evaluate(ctx);
        return elapsedMs(start);
    }, options);
    const preEvaluate = await timeRounds(async (count) => {
        const start = nowNs();
        for (let i = 0; i < count; i++) await evaluator.preEvaluate(preCtx);
        return elapsedMs(start);
    }, options);
    const compile = await timeRounds((count) => {
        const start = nowNs();
        for (let i = 0; i < count; i++) if (evaluator.compile(preCtx).type === 'conditional') sink++;
        return elapsedMs(start);
    }, options);
    if (sink === 0) throw new Error('unreachable: the sink counts every allowed call');

    return [
        throughput('allows() sync, 1 grant, system.default', allows, CALLS_TARGET),
        throughput('await evaluate(), 1 grant, system.default', evaluate, CALLS_TARGET),
        throughput('await preEvaluate() without data', preEvaluate, CALLS_TARGET),
        throughput('compile() → conditional', compile, CALLS_TARGET),
    ];
}

async function benchCreation(options: BenchOptions): Promise<BenchResult[]> {
    const { catalog, grants } = largeInput();
    // build once up front: validates the fixture and caches the projection for the warm case
    const evaluator = createAuthorizationEvaluator({ catalog, grants, identity: USER });
    if (!evaluator.allows({ name: grants[0]!.name, realmId: grants[0]!.realm_id, data: { [BuiltInPolicyType.REALM_MATCH]: REALM_A } })) {
        throw new Error('bench setup: the first large-catalog grant should be allowed');
    }

    // cold: a fresh catalog object each time, so the projection cache misses; cloning is untimed
    const cold = await timeRounds((count) => {
        const copies = Array.from({ length: count }, () => structuredClone(catalog));
        const start = nowNs();
        for (const copy of copies) createAuthorizationEvaluator({ catalog: copy, grants, identity: USER });
        return elapsedMs(start);
    }, options, MAX_COLD_PER_ROUND);
    const warm = await timeRounds((count) => {
        const start = nowNs();
        for (let i = 0; i < count; i++) createAuthorizationEvaluator({ catalog, grants, identity: USER });
        return elapsedMs(start);
    }, options);

    const shape = `${DEFINITIONS} defs / ${GRANTS} grants`;
    return [
        latency(`create evaluator, cold (${shape})`, cold, CREATION_TARGET_MS),
        latency(`create evaluator, warm (${shape})`, warm, CREATION_TARGET_MS),
    ];
}

export async function run(options: BenchOptions): Promise<BenchResult[]> {
    return [...await benchDecisions(options), ...await benchCreation(options)];
}
