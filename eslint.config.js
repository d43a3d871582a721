import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['**/dist/**', '**/node_modules/**', 'writable/**', 'docs/.vitepress/cache/**'] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        languageOptions: { globals: { ...globals.node } },
        rules: {
            '@typescript-eslint/consistent-type-imports': 'error',
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
            'no-console': 'off',
        },
    },
    {
        // The access library and the client kit are isomorphic: they must not reach for Node-only APIs.
        files: ['packages/access/src/**/*.ts', 'packages/core/src/**/*.ts', 'packages/client/src/**/*.ts'],
        ignores: ['**/*.test.ts'],
        languageOptions: { globals: { ...globals['shared-node-browser'] } },
        rules: {
            'no-restricted-imports': ['error', { patterns: ['node:*', 'fs', 'path', 'crypto', 'os', 'util', 'buffer'] }],
            'no-restricted-globals': ['error', 'process', 'Buffer', 'require', '__dirname', '__filename'],
        },
    },
);
