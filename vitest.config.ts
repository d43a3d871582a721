import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources in tests (package.json "source" condition).
// Only 'source' is added for externals: an extra 'import' condition would make pg require pg-pool's ESM build.
export default defineConfig({
    resolve: { conditions: ['source', 'import', 'module', 'node', 'default'] },
    ssr: { resolve: { conditions: ['source', 'node', 'development|production'], externalConditions: ['source'] } },
    test: {
        include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
        // server tests create a database per suite and run the production migrations
        testTimeout: 30_000,
        hookTimeout: 120_000,
    },
});
