/**
 * The SQL texts PostgreSQL runs as named prepared statements (fewer database round trips on the hot paths): the hot paths'
 * queries, compiled once by db/prepared.ts and storage/prepared-insert.ts, register their text here;
 * node-postgres then parses and plans each once per connection and afterwards sends only Bind and
 * Execute with a statement name, so the server skips parsing and planning on every token, bearer
 * request and introspection. Only registered texts are named: they are a finite set written in the
 * code, so no request can make a connection prepare statements without bound (a list filter's
 * text, built from the request, runs unnamed).
 */
const names = new Map<string, string>();

/** the most texts named: the hot paths hold a few dozen, a batched INSERT one per batch size */
const MAX_NAMED = 2_000;

/** Registers a text compiled once for the hot paths (idempotent). */
export function nameStatement(sql: string): void {
    if (!names.has(sql) && names.size < MAX_NAMED) names.set(sql, `rg_${names.size.toString(36)}`);
}

/** The name `sql` is prepared under, or undefined for a text that runs unnamed. */
export function statementName(sql: string): string | undefined {
    return names.get(sql);
}
