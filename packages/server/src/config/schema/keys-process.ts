import type { ConfigKey } from './config.js';

/**
 * The process: its configuration file, listener, public URL, writable directory, database,
 * Redis, caches and heap.
 * Order matters: a default that refers to `$NAME` must come after NAME's row (config/schema.ts assembles
 * the groups in this order).
 */
export const PROCESS_KEYS = [
    {
        key: 'configFile',
        env: 'CONFIG_FILE',
        default: null,
        description: 'configuration file (JSON or YAML, the keys of this table nested as the Deploy section shows); unset: `realmgate.config.json`, `realmgate.config.yaml` or `realmgate.config.yml` in the working directory when present; variables override the file',
    },
    { key: 'env', env: 'NODE_ENV', default: 'development', description: 'runtime environment: `production`, `development` or `test`' },
    { key: 'port', env: 'PORT', default: '3000', description: 'HTTP listener port (1–65535)' },
    { key: 'host', env: 'HOST', default: '0.0.0.0', description: 'HTTP listener address' },
    {
        key: 'publicUrl',
        env: 'PUBLIC_URL',
        default: 'http://localhost:$PORT',
        description: 'absolute http(s) URL the server is reached at; issuer base and links (a trailing slash is stripped)',
    },
    {
        key: 'writableDirectoryPath',
        env: 'WRITABLE_DIRECTORY_PATH',
        default: './writable',
        description: 'folder for the SQLite file and the provisioning files applied at boot (`provisioning/*.json`, `*.yaml`, `*.yml`)',
    },
    { key: 'db.type', env: 'DB_TYPE', default: 'sqlite', description: 'database: `sqlite`, `postgres` or `mysql`' },
    {
        key: 'db.url',
        env: 'DB_URL',
        default: null,
        description: 'connection URL for `postgres` / `mysql` (or use DB_HOST and the other DB_ parts)',
        secret: true,
    },
    { key: 'db.host', env: 'DB_HOST', default: null, description: 'database host when DB_URL is unset' },
    { key: 'db.port', env: 'DB_PORT', default: null, description: 'database port (1–65535); the driver default when unset' },
    { key: 'db.username', env: 'DB_USERNAME', default: null, description: 'database user' },
    { key: 'db.password', env: 'DB_PASSWORD', default: null, description: 'database password', secret: true },
    { key: 'db.database', env: 'DB_DATABASE', default: null, description: 'database name (for SQLite: the file path)' },
    {
        key: 'db.poolSize',
        env: 'DB_POOL_SIZE',
        default: '10',
        description: 'connections per database pool on `postgres` / `mysql` (each MySQL replica has its own pool of this size; on PostgreSQL DB_ASYNCHRONOUS_COMMIT takes its connections out of this number); one Node process keeps about as many queries in flight as it has concurrent requests, so size it to the requests served at once, within the server\'s `max_connections` divided by the replicas of Realmgate',
    },
    {
        key: 'db.asynchronousCommit',
        env: 'DB_ASYNCHRONOUS_COMMIT',
        default: 'true',
        description: '`postgres` only (ignored on `sqlite` / `mysql`): `true` writes the session, refresh-token and event rows of token answers through a quarter of DB_POOL_SIZE\'s connections (none below 4) that run with `synchronous_commit = off`, so those commits do not wait for the WAL flush; a PostgreSQL crash (not a Realmgate one) may lose the last moments of them, which only makes those tokens inactive, and revocations, spent codes and refresh tokens and every other write stay synchronous (docs/operations/database.md); set `false` behind a transaction pooler such as PgBouncer, which refuses the startup option (the boot stops and says so)',
    },
    {
        key: 'db.namedStatements',
        env: 'DB_NAMED_STATEMENTS',
        default: 'true',
        description: '`postgres` only (ignored on `sqlite` / `mysql`): `true` runs the hot paths\' queries as named prepared statements, parsed and planned once per connection; set `false` behind a pooler in transaction mode that cannot keep them — PgBouncer before 1.21, or a later one without `max_prepared_statements` (docs/operations/database.md)',
    },
    {
        key: 'db.busUrl',
        env: 'DB_BUS_URL',
        default: null,
        description: '`postgres` only, without `REDIS_URL`: a `postgres://` URL of the same database reached directly, for the bus\'s `LISTEN` connection and its `NOTIFY`s, when DB_URL goes through a pooler in transaction mode (PgBouncer `pool_mode=transaction`), where `LISTEN` hears nothing and the bus, which must hear its own probe, stays not live with every cache off (docs/operations/caches.md, docs/operations/database.md); unset, the bus connects where the pool does (DB_URL or the DB_ parts)',
        secret: true,
    },
    {
        key: 'db.replication',
        env: 'DB_REPLICATION',
        default: null,
        description: 'MySQL / MariaDB read replicas: comma-separated `mysql://` URLs, or the JSON / file object `{"read": ["mysql://…"]}`; reads go to a replica, writes and every read after a write in the same request to the primary; each replica is pinned to UTC like the primary and one that contradicts the pin stops the boot',
        secret: true,
    },
    {
        key: 'redisUrl',
        env: 'REDIS_URL',
        default: null,
        description: '`redis://` or `rediss://` URL of the shared rate-limit store and bus; unset, the limits count in process and the bus is PostgreSQL\'s `LISTEN`/`NOTIFY` on PostgreSQL (docs/operations/caches.md), in process otherwise',
        secret: true,
    },
    {
        key: 'caches',
        env: 'CACHES',
        default: 'auto',
        description: '`auto`, `on` or `off`: whether a process remembers active signing keys, grants, realms and the clients that authenticated (docs/operations/caches.md); `auto` remembers when every replica hears every invalidation — with `REDIS_URL`, on PostgreSQL (its `LISTEN`/`NOTIFY` bus), or on SQLite (one process); `on` also on MySQL without Redis, for a deployment of exactly one process',
    },
    {
        key: 'heapGrowingPercent',
        env: 'HEAP_GROWING_PERCENT',
        default: null,
        description: 'how far, in percent, the V8 heap may grow past what its last full collection kept alive before the next one (docs/operations/memory.md): less memory, more collection work under load; unset: `30` when the process may use more than 1 GiB (its container\'s cgroup limit, else the host\'s memory), V8\'s own growth (up to 4 × on a large host) at or below; `0`: V8\'s own always; set by `start` in its own process, and a heap size given in `NODE_OPTIONS` (`--max-old-space-size`) or on node\'s command line wins',
    },
] as const satisfies readonly ConfigKey[];
