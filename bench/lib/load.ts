/**
 * Load generation with autocannon on loopback, one scenario at a time (the host has few cores),
 * in rounds: every scenario runs once per round, so a drift in the host's load during the run
 * touches every figure alike and the ratios between them stay honest.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon, { type AutocannonRequest } from 'autocannon';

export interface LoadPlan {
    connections: number;
    /** rounds over all scenarios */
    rounds: number;
    /** seconds measured per scenario and round (whole seconds: autocannon rounds a duration up to its next tick) */
    roundSeconds: number;
    /** seconds of unrecorded load before a scenario's first round (JIT, caches, connection pools) */
    warmup: number;
    /** autocannon stops on time and abandons what is in flight: the server finishes it before the next run */
    settleMs: number;
}

export function loadPlan(quick: boolean): LoadPlan {
    return quick ?
        { connections: 10, rounds: 2, roundSeconds: 1, warmup: 1, settleMs: 300 } :
        { connections: 10, rounds: 3, roundSeconds: 4, warmup: 2, settleMs: 500 };
}

export interface RoundResult {
    requests: number;
    seconds: number;
    p50: number;
    p99: number;
    /** connection errors, timeouts and non-2xx answers */
    errors: number;
    /** a non-2xx answer seen, for the note */
    firstFailure?: string;
}

export interface LoadRequest extends AutocannonRequest {
    path: string;
    /** the answer this load expects when it is not a 2xx (a conditional GET's 304): not counted as an error */
    expectStatus?: number;
}

export async function loadOnce(baseUrl: string, request: LoadRequest, connections: number, seconds: number, settleMs: number): Promise<RoundResult> {
    let firstFailure: string | undefined;
    const observed: AutocannonRequest = {
        ...request,
        onResponse(status, body, context) {
            if (status >= 300 && status !== request.expectStatus && firstFailure === undefined) firstFailure = `${status} ${body.slice(0, 200)}`;
            request.onResponse?.(status, body, context);
        },
    };
    const result = await autocannon({ url: baseUrl, connections, pipelining: 1, timeout: 30, duration: seconds, requests: [observed] });
    await sleep(settleMs);
    return {
        requests: result.requests.total,
        // the time autocannon really ran (it ends on a whole-second tick), so rates are not inflated
        seconds: result.duration,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors + result.non2xx - (request.expectStatus !== undefined ? result.statusCodeStats?.[String(request.expectStatus)]?.count ?? 0 : 0),
        ...(firstFailure !== undefined ? { firstFailure } : {}),
    };
}

/** One probe request, to learn whether a route exists and answers 2xx before loading it. */
export async function probe(baseUrl: string, request: LoadRequest) {
    const response = await fetch(`${baseUrl}${request.path}`, {
        method: request.method ?? 'GET',
        ...(request.headers ? { headers: request.headers } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
    });
    return { status: response.status, body: await response.text() };
}
