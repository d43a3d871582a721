import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources in tests (package.json "source" condition).
// Only 'source' is added for externals: an extra 'import' condition would make pg require pg-pool's ESM build.
export default defineConfig({
    resolve: { conditions: ['source', 'import', 'module', 'node', 'default'] },
    ssr: { resolve: { conditions: ['source', 'node', 'development|production'], externalConditions: ['source'] } },
    test: {
        include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'bench/**/*.test.ts', 'eslint-rules/**/*.test.ts', 'scripts/**/*.test.ts'],
        // files whose every suite needs a server database (describeEachDialect with `only`) hold no
        // test without one; vitest fails an empty file, so they are left out until it is configured
        exclude: [
            '**/node_modules/**',
            ...(process.env.TEST_POSTGRES_URL || process.env.TEST_MYSQL_URL ? [] : [
                'packages/server/test/e2e/replicas.test.ts',
                'packages/server/test/e2e/dpop-replicas.test.ts',
                'packages/server/test/http/database-connections-terminated.test.ts',
            ]),
            ...(process.env.TEST_POSTGRES_URL ? [] : [
                'packages/server/src/bus/postgres-bus.test.ts',
                'packages/server/test/http/asynchronous-commit.test.ts',
                'packages/server/test/e2e/token-crash.test.ts',
                'packages/server/test/e2e/client-assertion-replicas.test.ts',
            ]),
            ...(process.env.TEST_MYSQL_URL ? [] : [
                'packages/server/src/db/migrate-crash.test.ts',
                'packages/server/test/http/mysql-replication.test.ts',
                'packages/server/test/http/mysql-replica-lag.test.ts',
            ]),
            ...(process.env.TEST_REDIS_URL ? [] : ['packages/server/src/bus/redis-bus.test.ts', 'packages/server/test/e2e/second-factor-replicas.test.ts']),
            // the short soak: three replicas behind HAProxy on PostgreSQL, with a Redis of its own
            ...(process.env.TEST_POSTGRES_URL && process.env.TEST_REDIS_URL ? [] : ['bench/soak/soak.test.ts']),
        ],
        // vitest's default is one worker fewer than the cores: a single worker on the 2-core CI
        // machine, where a test file mostly waits on its databases, browser or child processes
        maxWorkers: Math.max(2, availableParallelism() - 1),
        // names the run for its migrated database templates (packages/server/test/database-templates.ts)
        globalSetup: ['packages/server/test/global-setup.ts'],
        // server tests create a database per suite (a copy of the run's migrated template)
        testTimeout: 30_000,
        hookTimeout: 120_000,
    },
});
