import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import realmgate from './eslint-rules/no-tracker-references.js';

export default tseslint.config(
    { ignores: ['**/dist/**', '**/node_modules/**', 'writable/**'] },
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
    {
        // comments cite the rule, RFC or spec section they follow, never a tracker number
        files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts', 'packages/*/test/**/*.ts', 'bench/**/*.{ts,mjs}', 'eslint-rules/**/*.{js,ts}'],
        plugins: { realmgate },
        rules: { 'realmgate/no-tracker-references': 'error' },
    },
);
