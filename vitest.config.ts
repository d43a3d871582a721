import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources in tests (package.json "source" condition).
const conditions = ['source', 'import', 'module', 'node', 'default'];

export default defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: conditions } },
    test: {
        include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    },
});
