/**
 * The database, catalog and memory targets, each with its figure from the run and whether it is
 * met, as one section of BENCHMARKS.md (after the share-of-floor targets, bench/lib/floor-shares.ts).
 * Every figure is a ratio of two rates measured in the same run; the two targets set against a
 * recorded baseline take its figures (GET /authorization 1,335/s and /users?page[limit]=50 722/s
 * on PostgreSQL when the targets were set) over this run's bare Fastify GET, the nearest measure
 * of that ratio the run has.
 */
import type { Measured } from './scenarios.js';
import type { Row, Section } from './report.js';

type Dialect = 'sqlite' | 'postgres' | 'mysql';

/**
 * The protocol scenarios, by key, with their titles: each is profiled after the rounds
 * (bench/http.bench.ts), and each one's PostgreSQL ÷ SQLite ratio is bounded.
 */
export const PROTOCOL_SCENARIOS: Readonly<Record<string, string>> = {
    cc: 'client_credentials, plain secret',
    refresh: 'refresh_token (rotation)',
    redeem: 'authorization_code redemption',
    introspect: 'introspection, 50 grants',
    me: 'bearer GET /users/@me',
    userinfo: 'GET /userinfo',
    catalog: 'GET /authorization, 1,000 definitions',
};
const BASELINE_CATALOG_RPS = 1_335;
const BASELINE_LIST_RPS = 722;

const NAMES: Record<Dialect, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL' };

/** What the run measured, by scenario key; undefined for a scenario it did not run (`--db postgres` alone has no SQLite figures). */
type Figures = (key: string) => Measured | undefined;

/** `numerator ÷ denominator`, unknown when either side was not measured. */
const over = (numerator: number | undefined, denominator: number | undefined): number | undefined =>
    numerator === undefined || denominator === undefined ? undefined : numerator / denominator;

/** A target row; one whose figure or reference was not measured in this run says so and is not judged. */
function target(scenario: string, figure: number | undefined, reference: string, atLeast: number): Row {
    const bound = `≥ ${atLeast} ×`;
    if (figure === undefined) return { scenario, reference, target: bound, note: 'not measured' };
    return { scenario, ratio: figure, reference, target: bound, met: Number.isFinite(figure) && figure >= atLeast };
}

export function targetSection(
    dialects: readonly Dialect[],
    measured: Figures,
    rss: { dialect: Dialect; largestMb: number | undefined }[],
): Section {
    const on = (dialect: Dialect, key: string) => measured(`${dialect}:${key}`)?.rps;
    const bareGet = measured('fastifyGet')?.rps;
    const rows: Row[] = [];
    for (const dialect of dialects) {
        const name = NAMES[dialect];
        rows.push(target(`introspection, 50 grants (${name})`, over(on(dialect, 'introspect'), measured('oidcIntrospect')?.rps), 'oidc-provider introspection', dialect === 'sqlite' ? 1.5 : 0.75));
        rows.push(target(`client_credentials, plain (${name})`, over(on(dialect, 'cc'), measured('oidcJwt')?.rps), 'oidc-provider client_credentials (JWT)', 1));
        if (dialect === 'sqlite') rows.push(target('bearer GET /users/@me (SQLite)', over(on(dialect, 'me'), bareGet), 'bare Fastify GET', 0.3));
        else rows.push(target(`bearer GET /users/@me (${name})`, over(on(dialect, 'me'), on('sqlite', 'me')), 'the same on SQLite', 0.8));
        if (dialect !== 'sqlite') {
            for (const [key, title] of Object.entries(PROTOCOL_SCENARIOS)) rows.push(target(`${title} (${name} ÷ SQLite)`, over(on(dialect, key), on('sqlite', key)), 'the same on SQLite', 0.7));
        }
        rows.push(target(`GET /authorization, 1,000 definitions (${name})`, over(over(on(dialect, 'catalog'), bareGet), over(BASELINE_CATALOG_RPS, bareGet)), `the baseline's ratio (${BASELINE_CATALOG_RPS.toLocaleString('en-US')}/s over bare Fastify GET)`, 5));
        rows.push(target(`GET /authorization, If-None-Match → 304 (${name})`, over(on(dialect, 'catalog304'), bareGet), 'bare Fastify GET', 0.5));
        rows.push(target(`/users?page[limit]=50 with exact total (${name})`, over(over(on(dialect, 'list'), bareGet), over(BASELINE_LIST_RPS, bareGet)), `the baseline's ratio (${BASELINE_LIST_RPS}/s over bare Fastify GET)`, 3));
        rows.push(target(`refresh rotation (${name})`, over(on(dialect, 'refresh'), on(dialect, 'ccSmall')), 'client_credentials on the same server', 0.5));
        const largest = rss.find((entry) => entry.dialect === dialect)?.largestMb;
        rows.push({ scenario: `RSS after the load, largest Realmgate server (${name})`, note: largest === undefined ? 'unavailable' : `${largest.toFixed(0)} MB`, target: '< 200 MB', met: largest !== undefined && largest < 200 });
    }
    return { title: 'database, catalog and memory targets (every figure from this run)', rows };
}
