/**
 * The HTTP benchmark's scenarios and their rounds: each scenario prepares (untimed), loads, and
 * may look at its result; on a Realmgate server the statements sent to the database and the
 * responses finished are counted around every measured load, and a CPU profile can be taken over
 * one extra load after the rounds (bench/lib/instrument.ts).
 */
import { readCounters, startProfile, stopProfile, type CpuProfile } from './instrument.js';
import { loadOnce, probe, type LoadPlan, type LoadRequest, type RoundResult } from './load.js';
import type { Service } from './processes.js';
import type { codePool } from './sign-in.js';

/** A scenario's figures over all rounds. */
export interface Measured {
    rps: number;
    p50: number;
    p99: number;
    errors: number;
    firstFailure?: string;
    skipped?: string;
    /** statements sent to the database per response finished, over the measured loads */
    roundTrips?: number;
}

/** One line of load: warmed once, then run once per round. */
export interface Scenario {
    key: string;
    /** the instrumented Realmgate server that answers, when it is one */
    server?: Service;
    /** untimed work before a load of `seconds` (minting codes, topping a token pool up) */
    prepare(seconds: number): Promise<void>;
    load(seconds: number, settleMs: number): Promise<RoundResult>;
    /** sees each load's result (a pool sized from the rate) */
    observe?(result: RoundResult): void;
    skipped?: string;
    failure?: string;
}

const NOTHING: RoundResult = { requests: 0, seconds: 0, p50: 0, p99: 0, errors: 0 };

function skippedScenario(key: string, reason: string): Scenario {
    return { key, skipped: reason, prepare: async () => undefined, load: async () => NOTHING };
}

/**
 * An HTTP scenario, probed first: a route that answers 404 while `skipOn404` (being built by
 * others) is skipped and says so; another failure is loaded anyway and reported. `server` marks
 * a Realmgate server whose counters are read.
 */
export async function httpScenario(
    key: string, service: Service, request: LoadRequest, connections: number,
    options: { skipOn404?: boolean; before?: () => Promise<void>; server?: boolean } = {},
): Promise<Scenario> {
    let failure: string | undefined;
    if (!request.setupRequest) {
        const answer = await probe(service.url, request);
        if (answer.status === 404 && options.skipOn404) return skippedScenario(key, 'route answers 404 (not built yet): skipped');
        if (answer.status >= 300 && answer.status !== request.expectStatus) failure = `${answer.status} ${answer.body.slice(0, 200)}`;
    }
    return {
        key,
        ...(options.server ? { server: service } : {}),
        ...(failure ? { failure } : {}),
        prepare: options.before ?? (async () => undefined),
        load: (seconds, settleMs) => loadOnce(service.url, request, connections, seconds, settleMs),
    };
}

/**
 * Code redemption: every load first mints the codes it will spend through
 * `POST /authorize` (the API form, untimed), then loads `POST /token` with them. Skipped, and
 * said so, while `POST /authorize` does not answer.
 */
export async function codeScenario(key: string, service: Service, codes: ReturnType<typeof codePool>, connections: number): Promise<Scenario> {
    const unavailable = await codes.probe();
    if (unavailable) return skippedScenario(key, `${unavailable}: skipped`);
    const request = codes.request();
    return {
        key,
        server: service,
        prepare: (seconds) => codes.fill(seconds),
        load: (seconds, settleMs) => loadOnce(service.url, request, connections, seconds, settleMs),
        // successful redemptions only: a refused replay is fast and would inflate the next pool
        observe: (result) => codes.observe((result.requests - result.errors) / result.seconds),
    };
}

/** An in-process rate (calls per second for `seconds`) taking its turn in the rounds like a scenario. */
export function inProcessScenario(key: string, rate: (seconds: number) => Promise<number>): Scenario {
    return {
        key,
        prepare: async () => undefined,
        load: async (seconds) => ({ requests: (await rate(seconds)) * seconds, seconds, p50: Number.NaN, p99: Number.NaN, errors: 0 }),
    };
}

interface Tally {
    queries: number;
    responses: number;
    /** the driver was patched in the server (else no figure) */
    counted: boolean;
}

/** Prepares, loads (with `around` wrapped about the load alone) and lets the scenario observe. */
async function execute(scenario: Scenario, seconds: number, settleMs: number, tally?: Tally): Promise<RoundResult> {
    await scenario.prepare(seconds);
    const counting = tally && scenario.server ? scenario.server.child : undefined;
    const before = counting ? await readCounters(counting) : undefined;
    const result = await scenario.load(seconds, settleMs);
    if (counting && before && tally) {
        // read after the settle: the requests autocannon abandoned have been answered by then
        const after = await readCounters(counting);
        tally.queries += after.queries - before.queries;
        tally.responses += after.responses - before.responses;
        tally.counted &&= after.instrumented;
    }
    scenario.observe?.(result);
    return result;
}

/**
 * The order of the rounds: the scenarios of one group (the same work on every database, and the
 * floor it is measured against) back to back, the groups in the order they first appear, so drift
 * in the host's load touches the two sides of a ratio alike.
 */
export function interleave(lists: readonly (readonly Scenario[])[], groupOf: (key: string) => string): Scenario[] {
    const groups = new Map<string, Scenario[]>();
    for (const scenario of lists.flat()) {
        const group = groupOf(scenario.key);
        const members = groups.get(group);
        if (members) members.push(scenario);
        else groups.set(group, [scenario]);
    }
    return [...groups.values()].flat();
}

export async function runRounds(scenarios: readonly Scenario[], plan: LoadPlan, log: (line: string) => void): Promise<Map<string, Measured>> {
    const rounds = new Map<string, RoundResult[]>(scenarios.map((scenario) => [scenario.key, []]));
    const tallies = new Map<string, Tally>(scenarios.map((scenario) => [scenario.key, { queries: 0, responses: 0, counted: true }]));
    for (let round = 0; round < plan.rounds; round++) {
        log(`round ${round + 1} of ${plan.rounds} over ${scenarios.length} scenarios`);
        for (const scenario of scenarios) {
            if (scenario.skipped) continue;
            if (round === 0 && plan.warmup > 0) await execute(scenario, plan.warmup, plan.settleMs);
            rounds.get(scenario.key)!.push(await execute(scenario, plan.roundSeconds, plan.settleMs, tallies.get(scenario.key)));
        }
    }
    const measured = new Map<string, Measured>();
    for (const scenario of scenarios) {
        const results = rounds.get(scenario.key)!;
        if (scenario.skipped) {
            measured.set(scenario.key, { rps: Number.NaN, p50: Number.NaN, p99: Number.NaN, errors: 0, skipped: scenario.skipped });
            continue;
        }
        const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
        const failure = scenario.failure ?? results.find((result) => result.firstFailure)?.firstFailure;
        const tally = tallies.get(scenario.key)!;
        measured.set(scenario.key, {
            rps: results.reduce((sum, result) => sum + result.requests, 0) / results.reduce((sum, result) => sum + result.seconds, 0),
            // latency: the mean of the rounds' percentiles (autocannon keeps no merged histogram)
            p50: mean(results.map((result) => result.p50)),
            p99: mean(results.map((result) => result.p99)),
            errors: results.reduce((sum, result) => sum + result.errors, 0),
            ...(failure ? { firstFailure: failure } : {}),
            ...(scenario.server && tally.counted && tally.responses > 0 ? { roundTrips: tally.queries / tally.responses } : {}),
        });
    }
    return measured;
}

/**
 * One extra load of `seconds` per scenario with the server's CPU profiler on, after the rounds
 * (so the measured figures carry no sampling overhead and the JIT has settled). The profile
 * covers the load and its settle, not the untimed preparation.
 */
export async function profileScenarios(
    scenarios: readonly Scenario[], seconds: number, settleMs: number, intervalMicros: number, log: (line: string) => void,
): Promise<Map<string, CpuProfile>> {
    const profiles = new Map<string, CpuProfile>();
    for (const scenario of scenarios) {
        if (scenario.skipped || !scenario.server) continue;
        log(`CPU profile of ${scenario.key}`);
        await scenario.prepare(seconds);
        await startProfile(scenario.server.child, intervalMicros);
        let result: RoundResult;
        try {
            result = await scenario.load(seconds, settleMs);
        } finally {
            profiles.set(scenario.key, await stopProfile(scenario.server.child));
        }
        scenario.observe?.(result);
    }
    return profiles;
}
