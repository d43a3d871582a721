import type { ConfigKey } from './config.js';

/**
 * What the process runs and keeps: mail, the bootstrap admin, secrets, token lifetimes, the
 * worker, the consoles, metrics, shutdown, event retention and migrations.
 * Order matters: a default that refers to `$NAME` must come after NAME's row (config/schema.ts assembles
 * the groups in this order).
 */
export const SERVICE_KEYS = [
    {
        key: 'smtp',
        env: 'SMTP_URL',
        default: null,
        description: '`smtp://` or `smtps://` URL of the mail relay for activation and password-reset mail (`smtps://user:pass@mail.example:465?from=auth@example.com`); the relay certificate is verified unless the URL ends in `?tls.rejectUnauthorized=false`; a config file may give the `smtp` object instead (`host`, `port`, `secure`, `auth`, `rejectUnauthorized`, `from`); unset: the mail routes answer 503 naming SMTP_URL',
        secret: true,
    },
    { key: 'userAdmin.name', env: 'USER_ADMIN_NAME', default: 'admin', description: 'name of the bootstrap administrator' },
    {
        key: 'userAdmin.password',
        env: 'USER_ADMIN_PASSWORD',
        default: 'start123',
        description: 'password of the bootstrap administrator',
        secret: true,
    },
    {
        key: 'userAdmin.enabled',
        env: 'USER_ADMIN_ENABLED',
        default: 'true',
        description: 'strict `true` / `false` (any other value stops the boot); `false` deactivates the bootstrap administrator on the next start',
    },
    {
        key: 'secretsEncryptionKey',
        env: 'SECRETS_ENCRYPTION_KEY',
        default: null,
        description: '32-byte key (base64, or 64 hex characters) wrapping realm encryption keys at rest',
        secret: true,
    },
    { key: 'tokenAccessMaxAge', env: 'TOKEN_ACCESS_MAX_AGE', default: '900', description: 'access-token lifetime in seconds' },
    { key: 'tokenRefreshMaxAge', env: 'TOKEN_REFRESH_MAX_AGE', default: '259200', description: 'refresh-token lifetime in seconds' },
    {
        key: 'worker.enabled',
        env: 'WORKER_ENABLED',
        default: 'true',
        description: 'run the background sweeps (expired sessions, codes, tickets; event retention and aggregates): in process with `start` and `start core`, alone with `start worker`, which refuses to boot while this is `false`',
    },
    {
        key: 'worker.port',
        env: 'WORKER_PORT',
        default: '$PORT',
        description: 'port of the health listener of `start worker` (`GET /`); set it apart from `PORT` when the API runs from the same environment on the same host',
    },
    {
        key: 'console.port',
        env: 'CONSOLE_PORT',
        default: '$PORT',
        description: 'port of a standalone console (`start console admin` or `start console account`); set it apart from `PORT` when the API runs on the same host. `start` serves both consoles on `PORT` under `/console/admin` and `/console/account`',
    },
    {
        key: 'console.authPort',
        env: 'CONSOLE_AUTH_PORT',
        default: '$CONSOLE_PORT',
        description: 'port of the auth console (`start console auth`: the sign-in, consent, logout and device pages alone, on the API\'s database); `start console` runs it beside the admin and account consoles, so set it apart from `CONSOLE_PORT` there',
    },
    {
        key: 'console.publicUrl',
        env: 'CONSOLE_PUBLIC_URL',
        default: null,
        description: 'absolute URL a browser reaches a standalone console at (without `/console/…`); bootstrap registers `<url>/console/admin/` and `<url>/console/account/` as redirect URIs of the `admin-console` client, which also allows the origin for CORS; unset: a standalone console is reached at `http://localhost:$CONSOLE_PORT`, registered only when `CONSOLE_PORT` differs from `PORT` (so an https deployment without a standalone console registers no plain-http URI)',
    },
    {
        key: 'metrics.enabled',
        env: 'METRICS_ENABLED',
        default: 'true',
        description: 'serve `GET /metrics` (Prometheus text); `false` answers 404',
    },
    {
        key: 'metrics.token',
        env: 'METRICS_TOKEN',
        default: null,
        description: 'bearer token a scraper sends to `GET /metrics` (`Authorization: Bearer …`); unset, only a direct loopback peer without forwarding headers is answered',
        secret: true,
    },
    {
        key: 'shutdownDrainMs',
        env: 'SHUTDOWN_DRAIN_MS',
        default: '5000',
        description: 'milliseconds `start` keeps serving after SIGTERM or SIGINT while `GET /health/ready` answers 503 (so a load balancer checking it takes the replica out of rotation), each answer closing its connection; then the listener closes, the requests in flight finish, queued event-log entries are written, and the process exits 0. Set it above the balancer\'s fall count times its check interval plus its check timeout (the longest a draining replica stays in rotation); a second signal exits 1 at once',
    },
    {
        key: 'eventLogRetentionDays',
        env: 'EVENT_LOG_RETENTION_DAYS',
        default: '90',
        description: 'days raw event-log entries (`GET /events`) are kept; the worker deletes older ones',
    },
    {
        key: 'eventLogAggregateRetentionDays',
        env: 'EVENT_LOG_AGGREGATE_RETENTION_DAYS',
        default: null,
        description: 'days the daily event counts (day and month `@stats`) are kept; unset keeps them forever',
    },
    { key: 'migrationEnabled', env: 'MIGRATION_ENABLED', default: 'true', description: 'run migrations at boot under a database lock' },
] as const satisfies readonly ConfigKey[];
