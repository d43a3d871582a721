import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { masterRealmId } from '../identities.js';
import { login } from '../sessions.js';
import { hostileAuthorization } from './hostile-input.js';
import { injectOptions, internalDetail, requestFor, type FuzzRequest } from './fuzz-request.js';
import { loadOperations, type Operation } from './openapi-operations.js';
import { buildRealmWorld, type RealmWorld } from './realm-world.js';
import { countChanges, tableCounts, type TableCounts } from './table-counts.js';

/*
 * Fuzzing every route of GET /openapi.json (a standing part of npm test): requests generated from
 * each operation's schemas, then broken (hostile-input.ts), sent as the admin (Basic or Bearer, or
 * with malformed credentials) and anonymously. Every answer is < 500 and carries no internal
 * detail; every answer 4xx leaves the row count of every table as it was. Seeded and replayable:
 * FUZZ_SEED (printed on failure) and FUZZ_RUNS (cases per operation).
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 12;

/** who sends a request: the admin by Basic or Bearer, nobody, or malformed credentials */
type Caller = 'basic' | 'bearer' | 'anonymous' | { header: string };

/** a seed per operation, so one route replays alone whatever ran before it */
function seedOf(operation: Operation): number {
    let hash = SEED | 0;
    for (const char of `${operation.method} ${operation.path}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16_777_619);
    return hash;
}

/** deletions last (realms at the very end): the rows the other routes aim at stay in place meanwhile */
function order(operation: Operation): number {
    if (operation.method !== 'DELETE') return 0;
    return operation.path.startsWith('/realms/{id}') ? 2 : 1;
}

describeEachDialect('fuzzing every route of the OpenAPI document', (dialect) => {
    // budgets and the failure lockout would answer 429 to most of the run (they are under test in limits.test.ts)
    // a relay that accepts no connection: the mail routes run their whole path (a mail is sent off
    // the request and its failure only logged), instead of the 503 that names an unset SMTP_URL
    const app = useTestApp(dialect, { rateLimit: { userMax: 1e9, clientMax: 1e9, anonymousMax: 1e9 }, smtp: 'smtp://127.0.0.1:9' }, { limits: { failureMax: 1e9 } });
    let operations: Operation[];
    let world: RealmWorld;
    let bearer: string;
    beforeAll(async () => {
        operations = (await loadOperations(app)).sort((a, b) => order(a) - order(b));
        world = await buildRealmWorld(app, 'fuzz');
        bearer = (await login(app, await masterRealmId(app), ADMIN.name, ADMIN.password)).bearer;
    });

    it('answers every generated request below 500, without internal detail, and writes nothing when it refuses (FUZZ_SEED and FUZZ_RUNS replay a run)', async () => {
        const allIds = world.markers.filter((marker) => /^[0-9a-f-]{36}$/.test(marker));
        const idsOf = (collection: string) => world.ids[collection as keyof RealmWorld['ids']] ?? [];
        const adminBasic = app.basic(ADMIN.name, ADMIN.password);
        const statuses = new Map<number, number>();
        const failures: string[] = [];
        let requests = 0;
        let counts: TableCounts = await tableCounts(app);

        const admin = { requests: 0, refused: 0 };
        const header = (caller: Caller) => (caller === 'anonymous' ? null : caller === 'basic' ? adminBasic : caller === 'bearer' ? bearer : caller.header);
        const callerName = (caller: Caller) => (typeof caller === 'string' ? caller : `credentials ${JSON.stringify(caller.header.slice(0, 80))}`);

        /** one request: the checks that hold for any answer, and the counts around a refusal */
        const send = async (operation: Operation, request: FuzzRequest, caller: Caller): Promise<string | undefined> => {
            const response = await app.request(injectOptions(operation, request, header(caller)));
            requests += 1;
            statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
            const after = await tableCounts(app);
            const changed = countChanges(counts, after);
            counts = after;
            if (caller === 'basic' || caller === 'bearer') {
                admin.requests += 1;
                if (response.statusCode === 401) admin.refused += 1;
                // a fuzzed DELETE /sessions may end the admin's own session: a new login keeps the Bearer half meaningful
                if (response.statusCode === 401 && caller === 'bearer') {
                    const renewed = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: ADMIN.name, password: ADMIN.password } });
                    // a refused login leaves the old token: its 401s then count against the admin below
                    if (renewed.statusCode === 200) bearer = `Bearer ${(renewed.json() as { access_token: string }).access_token}`;
                    counts = await tableCounts(app);
                }
            }
            const where = `${operation.method} ${request.url.slice(0, 200)} [${request.payload.label}] as ${callerName(caller)}`;
            if (response.statusCode >= 500) return `${where}: ${response.statusCode} ${response.body.slice(0, 300)}`;
            const detail = internalDetail(response.body);
            if (detail) return `${where}: ${response.statusCode} carries ${detail}: ${response.body.slice(0, 300)}`;
            if (response.statusCode >= 400 && changed.length > 0) return `${where}: ${response.statusCode} yet ${changed.join(', ')}`;
            if (({} as Record<string, unknown>).polluted !== undefined) return `${where}: Object.prototype was polluted`;
            return undefined;
        };

        for (const operation of operations) {
            // the admin (Basic or Bearer) mostly, malformed credentials now and then; anonymously always
            const caller = fc.oneof(
                { weight: 2, arbitrary: fc.constant<Caller>('basic') }, { weight: 2, arbitrary: fc.constant<Caller>('bearer') },
                { weight: 1, arbitrary: hostileAuthorization.map((value): Caller => ({ header: value })) },
            );
            const property = fc.asyncProperty(requestFor(operation, idsOf, allIds), caller, async (request, first) => {
                for (const as of [first, 'anonymous' as const]) {
                    const failure = await send(operation, request, as);
                    if (failure) throw new Error(failure);
                }
            });
            const details = await fc.check(property, { seed: seedOf(operation), numRuns: RUNS, endOnFailure: true });
            if (details.failed) {
                failures.push(`${operation.method} ${operation.path} (FUZZ_SEED=${SEED}, route seed ${details.seed}): ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`);
            }
        }

        const histogram = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ');
        console.info(`fuzz [${dialect}] seed ${SEED}: ${operations.length} operations × ${RUNS} cases, ${requests} requests, answers ${histogram}; the admin's ${admin.requests} answered 401 ${admin.refused} times`);
        expect(failures, `FUZZ_SEED=${SEED} replays this run`).toEqual([]);
        expect(operations.length).toBeGreaterThan(200);
        expect(requests).toBeGreaterThanOrEqual(operations.length * RUNS * 2);
        expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
        // the admin's requests get past authentication (the fuzz reaches validation and the handlers)
        expect(admin.refused).toBeLessThanOrEqual(admin.requests / 20);
    }, 900_000);
});
