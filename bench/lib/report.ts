/**
 * The one table of the HTTP benchmark and its Markdown copy in BENCHMARKS.md. Targets are printed
 * beside the figures, never asserted: wall-clock speed depends on the host, ratios less so.
 */
import os from 'node:os';

export interface Row {
    scenario: string;
    /** requests (or calls) per second */
    rps?: number;
    p50?: number;
    p99?: number;
    errors?: number;
    /** the figure the ratio is taken against, named */
    reference?: string;
    ratio?: number;
    /** e.g. `≥ 0.5 ×`; empty when the row has no target */
    target?: string;
    met?: boolean;
    note?: string;
}

export interface Section {
    title: string;
    rows: Row[];
}

const COLUMNS = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio', 'reference', 'target', 'met', 'note'] as const;
const NUMERIC = new Set<string>(['req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio']);

const figure = (value: number | undefined, digits = 0): string => {
    if (value === undefined || Number.isNaN(value)) return '';
    return digits === 0 ? Math.round(value).toLocaleString('en-US') : value.toFixed(digits);
};

/** autocannon records latency in whole milliseconds: 0 means under one */
const latency = (value: number | undefined): string => {
    if (value === undefined || Number.isNaN(value)) return '';
    if (value < 1) return '< 1';
    return Number.isInteger(value) ? String(value) : value.toFixed(1);
};

function cells(row: Row): string[] {
    return [
        row.scenario,
        figure(row.rps),
        latency(row.p50),
        latency(row.p99),
        figure(row.errors),
        row.ratio !== undefined ? `${row.ratio.toFixed(2)} ×` : '',
        row.reference ?? '',
        row.target ?? '',
        row.met === undefined ? '' : row.met ? 'yes' : 'NO',
        row.note ?? '',
    ];
}

export function formatText(sections: readonly Section[]): string {
    const all = sections.flatMap((section) => section.rows.map(cells));
    const widths = COLUMNS.map((title, column) => Math.max(title.length, ...all.map((row) => row[column]!.length)));
    const line = (values: readonly string[]) => values
        .map((value, column) => (NUMERIC.has(COLUMNS[column]!) ? value.padStart(widths[column]!) : value.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd();
    const out = [line(COLUMNS), line(widths.map((width) => '-'.repeat(width)))];
    for (const section of sections) {
        out.push(`[${section.title}]`);
        out.push(...section.rows.map((row) => line(cells(row))));
    }
    return out.join('\n');
}

const escape = (text: string) => text.replace(/\|/g, '\\|');

export function formatMarkdown(sections: readonly Section[]): string {
    const out: string[] = [];
    for (const section of sections) {
        out.push(`### ${section.title}`, '');
        out.push(`| ${COLUMNS.join(' | ')} |`, `|${COLUMNS.map((column) => (NUMERIC.has(column) ? '---:' : '---')).join('|')}|`);
        for (const row of section.rows) out.push(`| ${cells(row).map(escape).join(' | ')} |`);
        out.push('');
    }
    return out.join('\n');
}

export function machineLines(): string[] {
    const cpus = os.cpus();
    return [
        `- CPU: ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} cores; memory ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
        `- Node ${process.version} (${process.platform}-${process.arch})`,
        `- date ${new Date().toISOString()}; load average at the end ${os.loadavg().map((value) => value.toFixed(1)).join(' / ')} (1 / 5 / 15 min)`,
    ];
}
