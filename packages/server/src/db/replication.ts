import { AsyncLocalStorage } from 'node:async_hooks';
import type {
    CompiledQuery, DatabaseConnection, DatabaseIntrospector, Dialect, DialectAdapter, Driver, Kysely, QueryCompiler, QueryResult, TransactionSettings,
} from 'kysely';

/*
 * MySQL read replicas (spec Versioning: "MySQL replication supported again; configure under
 * db.replication"). A request reads from a replica until it writes; from its first write on, and
 * for every statement of a transaction, it uses the primary, so it reads its own writes despite
 * replication lag. Outside a request (boot, migrations, provisioning, the worker) everything runs
 * on the primary: those read-then-write steps must not see a lagging copy.
 */

interface RequestScope {
    wrote: boolean;
}

const requestScope = new AsyncLocalStorage<RequestScope>();

/** Runs `next` (the rest of a request) in a scope of its own: reads may go to a replica until it writes. */
export function runInReadScope(next: () => void): void {
    requestScope.run({ wrote: false }, next);
}

/**
 * A write made on the request's behalf elsewhere (a batched insert flushed later, outside the
 * request): the request's later reads must see it, so they go to the primary from now on.
 */
export function markRequestWritten(): void {
    const scope = requestScope.getStore();
    if (scope) scope.wrote = true;
}

/** Runs `work` outside any request's scope: on the primary, and without marking the request that scheduled it. */
export function outsideRequestScope<T>(work: () => T): T {
    return requestScope.exit(work);
}

/**
 * Which pool served a statement (tests prove the routing with it; nothing else reads it): MySQL's
 * primary and replicas, PostgreSQL's request pool (`primary`) and its asynchronous-commit pool.
 */
export type PoolName = 'primary' | `replica-${number}` | 'async-commit';

/** A plain read: a SELECT (or WITH … SELECT) that takes no lock. Anything else is a write. */
function isPlainRead(query: CompiledQuery): boolean {
    const kind = query.query.kind;
    if (kind !== 'SelectQueryNode' && kind !== 'RawNode') return false;
    const text = query.sql.trimStart().slice(0, 12).toLowerCase();
    if (!text.startsWith('select') && !text.startsWith('with')) return false;
    // locking reads, advisory locks (GET_LOCK) and session reads belong to the primary
    return !/\bfor\s+(update|share)\b|\block\s+in\s+share\s+mode\b|\bget_lock\s*\(|\brelease_lock\s*\(|@@/i.test(query.sql);
}

class RoutingConnection implements DatabaseConnection {
    private primary?: DatabaseConnection;
    private replica?: { driver: Driver; connection: DatabaseConnection; name: PoolName };
    inTransaction = false;

    constructor(private readonly router: RoutingDriver) {}

    async primaryConnection(): Promise<DatabaseConnection> {
        this.primary ??= await this.router.primary.acquireConnection();
        return this.primary;
    }

    private async target(query: CompiledQuery): Promise<{ connection: DatabaseConnection; name: PoolName }> {
        const scope = requestScope.getStore();
        if (!this.inTransaction && scope && !scope.wrote && isPlainRead(query)) {
            if (!this.replica) {
                const { driver, name } = this.router.nextReplica();
                this.replica = { driver, connection: await driver.acquireConnection(), name };
            }
            return { connection: this.replica.connection, name: this.replica.name };
        }
        if (scope && !isPlainRead(query)) scope.wrote = true;
        return { connection: await this.primaryConnection(), name: 'primary' };
    }

    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const { connection, name } = await this.target(query);
        this.router.observe?.(name, query.sql);
        return connection.executeQuery<R>(query);
    }

    async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
        const { connection, name } = await this.target(query);
        this.router.observe?.(name, query.sql);
        yield* connection.streamQuery<R>(query, chunkSize);
    }

    async release(): Promise<void> {
        if (this.primary) await this.router.primary.releaseConnection(this.primary);
        if (this.replica) await this.replica.driver.releaseConnection(this.replica.connection);
        this.primary = undefined;
        this.replica = undefined;
    }
}

class RoutingDriver implements Driver {
    private turn = 0;

    constructor(readonly primary: Driver, private readonly replicas: readonly Driver[], readonly observe?: (pool: PoolName, sql: string) => void) {}

    nextReplica(): { driver: Driver; name: PoolName } {
        // round robin over the replicas
        const index = this.turn++ % this.replicas.length;
        return { driver: this.replicas[index]!, name: `replica-${index}` };
    }

    async init(): Promise<void> {
        await this.primary.init();
        for (const replica of this.replicas) await replica.init();
    }

    async acquireConnection(): Promise<DatabaseConnection> {
        return new RoutingConnection(this);
    }

    async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
        const routed = connection as RoutingConnection;
        routed.inTransaction = true;
        await this.primary.beginTransaction(await routed.primaryConnection(), settings);
    }

    async commitTransaction(connection: DatabaseConnection): Promise<void> {
        const routed = connection as RoutingConnection;
        await this.primary.commitTransaction(await routed.primaryConnection());
        routed.inTransaction = false;
    }

    async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
        const routed = connection as RoutingConnection;
        await this.primary.rollbackTransaction(await routed.primaryConnection());
        routed.inTransaction = false;
    }

    async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
        await this.primary.savepoint?.(await (connection as RoutingConnection).primaryConnection(), name, compile);
    }

    async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
        await this.primary.rollbackToSavepoint?.(await (connection as RoutingConnection).primaryConnection(), name, compile);
    }

    async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
        await this.primary.releaseSavepoint?.(await (connection as RoutingConnection).primaryConnection(), name, compile);
    }

    async releaseConnection(connection: DatabaseConnection): Promise<void> {
        await (connection as RoutingConnection).release();
    }

    async destroy(): Promise<void> {
        await Promise.all([this.primary.destroy(), ...this.replicas.map((replica) => replica.destroy())]);
    }
}

/** The primary's dialect with statements routed between it and the replicas' drivers. */
export function routingDialect(primary: Dialect, replicas: readonly Dialect[], observe?: (pool: PoolName, sql: string) => void): Dialect {
    return {
        createDriver: () => new RoutingDriver(primary.createDriver(), replicas.map((replica) => replica.createDriver()), observe),
        createQueryCompiler: (): QueryCompiler => primary.createQueryCompiler(),
        createAdapter: (): DialectAdapter => primary.createAdapter(),
        createIntrospector: (db: Kysely<unknown>): DatabaseIntrospector => primary.createIntrospector(db),
    };
}
