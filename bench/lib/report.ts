/**
 * The one table of the HTTP benchmark and its Markdown copy in BENCHMARKS.md. Targets are printed
 * beside the figures, never asserted: wall-clock speed depends on the host, ratios less so.
 */
import os from 'node:os';
import type { BenchDialect } from './database.js';

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
    /** statements the server sent to its database per response it finished (bench/lib/instrument.ts) */
    roundTrips?: number;
    /** req/s of this row ÷ req/s of the same row in the same section on SQLite (compareWithSqlite) */
    versusSqlite?: Partial<Record<ServerDialect, number>>;
}

type ServerDialect = Exclude<BenchDialect, 'sqlite'>;

export interface Section {
    title: string;
    rows: Row[];
    /** rows of sections with the same key on different databases are compared (compareWithSqlite) */
    key?: string;
    dialect?: BenchDialect;
}

const DIALECT_LABEL: Record<ServerDialect, string> = { postgres: 'PostgreSQL', mysql: 'MySQL' };
const SERVER_DIALECTS = Object.keys(DIALECT_LABEL) as ServerDialect[];
const BASE_COLUMNS = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio', 'reference', 'target', 'met', 'note'];
const TRIPS = 'db trips/req';
const NUMERIC = new Set<string>(['req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio', TRIPS, ...SERVER_DIALECTS.map((dialect) => versusLabel(dialect))]);

/** The column header of a database's ratio to SQLite, e.g. `PostgreSQL ÷ SQLite`. */
export function versusLabel(dialect: ServerDialect): string {
    return `${DIALECT_LABEL[dialect]} ÷ SQLite`;
}

/**
 * Fills `versusSqlite` of every row of a PostgreSQL or MySQL section from the row with the same
 * scenario in the SQLite section with the same key. Rows without a rate on either side are left
 * alone. Returns the dialects compared, in the order of their columns.
 */
export function compareWithSqlite(sections: readonly Section[]): ServerDialect[] {
    const compared = new Set<ServerDialect>();
    for (const section of sections) {
        if (section.key === undefined || section.dialect === undefined || section.dialect === 'sqlite') continue;
        const dialect = section.dialect;
        const base = sections.find((other) => other.key === section.key && other.dialect === 'sqlite');
        if (!base) continue;
        for (const row of section.rows) {
            const same = base.rows.find((candidate) => candidate.scenario === row.scenario);
            if (row.rps === undefined || same?.rps === undefined || !(same.rps > 0) || Number.isNaN(row.rps)) continue;
            row.versusSqlite = { ...row.versusSqlite, [dialect]: row.rps / same.rps };
            compared.add(dialect);
        }
    }
    return SERVER_DIALECTS.filter((dialect) => compared.has(dialect));
}

/** The columns of a report: the optional ones only when some row fills them. */
function columnsOf(sections: readonly Section[]): string[] {
    const rows = sections.flatMap((section) => section.rows);
    const versus = SERVER_DIALECTS.filter((dialect) => rows.some((row) => row.versusSqlite?.[dialect] !== undefined));
    const columns = [...BASE_COLUMNS];
    // after the ratio to the reference: how the databases compare, then the round trips
    columns.splice(columns.indexOf('reference') + 1, 0, ...versus.map(versusLabel));
    if (rows.some((row) => row.roundTrips !== undefined)) columns.splice(columns.indexOf('note'), 0, TRIPS);
    return columns;
}

/** Statements per request: two decimals below ten (1.02 says a batch helps), one above. */
export function formatTrips(value: number | undefined): string {
    if (value === undefined || !Number.isFinite(value)) return '';
    return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

/** A ratio as `0.73 ×`; empty when unknown. */
export function formatRatio(value: number | undefined): string {
    return value === undefined || !Number.isFinite(value) ? '' : `${value.toFixed(2)} ×`;
}

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

function cell(row: Row, column: string): string {
    switch (column) {
        case 'scenario': return row.scenario;
        case 'req/s': return figure(row.rps);
        case 'p50 ms': return latency(row.p50);
        case 'p99 ms': return latency(row.p99);
        case 'errors': return figure(row.errors);
        case 'ratio': return formatRatio(row.ratio);
        case 'reference': return row.reference ?? '';
        case 'target': return row.target ?? '';
        case 'met': return row.met === undefined ? '' : row.met ? 'yes' : 'NO';
        case 'note': return row.note ?? '';
        case TRIPS: return formatTrips(row.roundTrips);
        default: {
            const dialect = SERVER_DIALECTS.find((candidate) => versusLabel(candidate) === column);
            return dialect ? formatRatio(row.versusSqlite?.[dialect]) : '';
        }
    }
}

const cells = (row: Row, columns: readonly string[]) => columns.map((column) => cell(row, column));

export function formatText(sections: readonly Section[]): string {
    const columns = columnsOf(sections);
    const all = sections.flatMap((section) => section.rows.map((row) => cells(row, columns)));
    const widths = columns.map((title, column) => Math.max(title.length, ...all.map((row) => row[column]!.length)));
    const line = (values: readonly string[]) => values
        .map((value, column) => (NUMERIC.has(columns[column]!) ? value.padStart(widths[column]!) : value.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd();
    const out = [line(columns), line(widths.map((width) => '-'.repeat(width)))];
    for (const section of sections) {
        out.push(`[${section.title}]`);
        out.push(...section.rows.map((row) => line(cells(row, columns))));
    }
    return out.join('\n');
}

const escape = (text: string) => text.replace(/\|/g, '\\|');

export function formatMarkdown(sections: readonly Section[]): string {
    const columns = columnsOf(sections);
    const out: string[] = [];
    for (const section of sections) {
        out.push(`### ${section.title}`, '');
        out.push(`| ${columns.join(' | ')} |`, `|${columns.map((column) => (NUMERIC.has(column) ? '---:' : '---')).join('|')}|`);
        for (const row of section.rows) out.push(`| ${cells(row, columns).map(escape).join(' | ')} |`);
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
