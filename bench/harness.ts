/**
 * A tiny in-process timing harness shared by every benchmark suite. It reports figures only:
 * targets are printed next to them, never asserted, because wall-clock speed depends on the host.
 */
import os from 'node:os';

export interface BenchOptions {
    /** fewer and shorter rounds, for a smoke run */
    quick: boolean;
}

/** One line of the report; `higherIsBetter` decides how median/best and the target compare. */
export interface BenchResult {
    scenario: string;
    median: number;
    best: number;
    unit: string;
    target: number;
    higherIsBetter: boolean;
}

interface RoundPlan {
    warmupMs: number;
    roundMs: number;
    rounds: number;
}

function roundPlan(options: BenchOptions): RoundPlan {
    return options.quick ? { warmupMs: 100, roundMs: 40, rounds: 5 } : { warmupMs: 500, roundMs: 200, rounds: 11 };
}

export function nowNs(): bigint {
    return process.hrtime.bigint();
}

export function elapsedMs(start: bigint): number {
    return Number(process.hrtime.bigint() - start) / 1e6;
}

export function median(values: readonly number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A batch of `count` operations; returns its duration in ms. Async batches await every call. */
export type Batch = (count: number) => number | Promise<number>;

/**
 * Warm up (which also lets the JIT settle on the hot path), size a round from the warm-up rate so
 * every round lasts about roundMs, then time the rounds. Returns ms per operation for each round.
 */
export async function timeRounds(batch: Batch, options: BenchOptions, maxPerRound = Number.POSITIVE_INFINITY): Promise<number[]> {
    const plan = roundPlan(options);
    let count = 1;
    let spent = 0;
    let done = 0;
    while (spent < plan.warmupMs) {
        spent += await batch(count);
        done += count;
        count = Math.min(count * 2, maxPerRound);
    }
    const msPerOp = spent / done;
    const perRound = Math.max(1, Math.min(maxPerRound, Math.round(plan.roundMs / msPerOp)));
    const rounds: number[] = [];
    for (let round = 0; round < plan.rounds; round++) {
        rounds.push((await batch(perRound)) / perRound);
    }
    return rounds;
}

/** Rounds of ms per operation as calls per second. */
export function throughput(scenario: string, msPerOp: readonly number[], target: number): BenchResult {
    const rates = msPerOp.map((ms) => 1000 / ms);
    return { scenario, median: median(rates), best: Math.max(...rates), unit: 'calls/s', target, higherIsBetter: true };
}

/** Rounds of ms per operation as a latency figure. */
export function latency(scenario: string, msPerOp: readonly number[], target: number): BenchResult {
    return { scenario, median: median(msPerOp), best: Math.min(...msPerOp), unit: 'ms', target, higherIsBetter: false };
}

function formatFigure(value: number, unit: string): string {
    if (unit === 'ms') return value < 0.1 ? value.toFixed(4) : value.toFixed(3);
    return Math.round(value).toLocaleString('en-US');
}

function met(result: BenchResult): boolean {
    // the median decides: a single lucky round must not turn a miss into a pass
    return result.higherIsBetter ? result.median >= result.target : result.median <= result.target;
}

export function environmentLines(): string[] {
    const cpus = os.cpus();
    return [
        `node ${process.version} (${process.platform}-${process.arch})`,
        `cpu  ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} cores`,
        `date ${new Date().toISOString()}`,
    ];
}

export function formatTable(results: readonly BenchResult[]): string {
    const header = ['scenario', 'median', 'best', 'unit', 'target', 'met?'];
    const rows = results.map((result) => [
        result.scenario,
        formatFigure(result.median, result.unit),
        formatFigure(result.best, result.unit),
        result.unit,
        `${result.higherIsBetter ? '≥' : '≤'} ${formatFigure(result.target, result.unit)}`,
        met(result) ? 'yes' : 'NO',
    ]);
    // text columns align left, figures right
    const numeric = [false, true, true, false, true, false];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    const line = (cells: readonly string[]) => cells
        .map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd();
    return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
