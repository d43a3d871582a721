/** The soak's report (pure): per phase its requests, failures, refusals, p50/p99 and throughput; the faults; the verdicts. */
import { verdictLine, type Verdict } from './invariants.js';
import { failed, type Phase, type RequestRecord, type SoakLog } from './records.js';

export interface PhaseFigures {
    name: string;
    seconds: number;
    requests: number;
    failed: number;
    /** 4xx: refusals, expected for revoked tokens, replays and spent codes */
    refused: number;
    errorRate: number;
    p50: number;
    p99: number;
    throughput: number;
}

function percentile(sorted: readonly number[], share: number): number {
    if (sorted.length === 0) return 0;
    return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

/** The load's own requests that left within the phase (the probes addressed to one replica excluded). */
export function figuresOf(phase: Phase, requests: readonly RequestRecord[]): PhaseFigures {
    const within = requests.filter((record) => !record.replica && record.sentAt >= phase.start && record.sentAt < phase.end);
    const latencies = within.map((record) => record.answeredAt - record.sentAt).sort((a, b) => a - b);
    const seconds = (phase.end - phase.start) / 1000;
    const failures = within.filter(failed).length;
    return {
        name: phase.name,
        seconds,
        requests: within.length,
        failed: failures,
        refused: within.filter((record) => record.status >= 400 && record.status < 500).length,
        errorRate: within.length === 0 ? 0 : failures / within.length,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        throughput: seconds > 0 ? within.length / seconds : 0,
    };
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

export function renderReport(log: SoakLog, verdicts: readonly Verdict[], context: { title: string; lines: readonly string[] }): string {
    const out: string[] = [`# ${context.title}`, '', ...context.lines, ''];
    out.push('| phase | s | requests | failed | refused (4xx) | error rate | p50 ms | p99 ms | req/s |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const phase of log.phases) {
        const figures = figuresOf(phase, log.requests);
        out.push(`| ${figures.name} | ${fixed(figures.seconds)} | ${figures.requests} | ${figures.failed} | ${figures.refused} | ${fixed(figures.errorRate * 100, 2)} % | ${figures.p50} | ${figures.p99} | ${fixed(figures.throughput)} |`);
    }
    const byOperation = new Map<string, { total: number; failed: number; refused: number }>();
    for (const record of log.requests) {
        const entry = byOperation.get(record.operation) ?? { total: 0, failed: 0, refused: 0 };
        entry.total++;
        if (failed(record)) entry.failed++;
        else if (record.status >= 400) entry.refused++;
        byOperation.set(record.operation, entry);
    }
    out.push('', '| operation | requests | failed | refused (4xx) |', '|---|---:|---:|---:|');
    for (const [operation, entry] of [...byOperation].sort()) out.push(`| ${operation} | ${entry.total} | ${entry.failed} | ${entry.refused} |`);
    out.push('', 'Faults (ms since the load began):', '');
    for (const fault of log.faults) out.push(`- ${fault.name}: ${fault.start} – ${fault.end}`);
    for (const revocation of log.revocations) out.push(`- ${revocation.kind} ${revocation.id} acknowledged at ${revocation.acknowledgedAt}`);
    out.push(`- acknowledged writes: ${log.writes.length}, found afterwards: ${log.writes.filter((write) => log.found.has(write.id)).length}`);
    out.push('', 'Invariants:', '');
    for (const verdict of verdicts) {
        out.push(`- ${verdict.name}: ${verdict.violations.length === 0 ? 'held' : `${verdict.violations.length} violation(s)`}`);
        for (const violation of verdict.violations.slice(0, 10)) out.push(`  - ${violation}`);
        if (verdict.violations.length > 10) out.push(`  - … ${verdict.violations.length - 10} more`);
    }
    out.push('', verdictLine(verdicts));
    return out.join('\n');
}
