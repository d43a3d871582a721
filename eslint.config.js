import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import pluginVue from 'eslint-plugin-vue';
import pluginVueA11y from 'eslint-plugin-vuejs-accessibility';
import realmgate from './eslint-rules/no-tracker-references.js';

export default tseslint.config(
    { ignores: ['**/dist/**', '**/node_modules/**', 'writable/**', 'docs/.vitepress/cache/**'] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    ...pluginVue.configs['flat/recommended'],
    ...pluginVueA11y.configs['flat/recommended'],
    {
        // the consoles' single-file components: TypeScript in <script setup lang="ts">, run in a browser
        files: ['**/*.vue'],
        languageOptions: {
            parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'], sourceType: 'module' },
            globals: { ...globals.browser },
        },
        rules: {
            // a label names its control by `for`/`id` (HTML §4.10.4) or by nesting it: either is
            // accessible, and the consoles use `for`/`id` so the field and its error can be styled apart
            'vuejs-accessibility/label-has-for': ['error', { required: { some: ['nesting', 'id'] } }],
            // PascalCase tags in single-file templates cannot collide with an HTML element (those are
            // lowercase, custom elements hyphenated), which is what the rule guards against
            'vue/multi-word-component-names': ['error', { ignores: ['Gated', 'Breadcrumbs'] }],
            // layout of the templates (attributes per line, line breaks, indentation) is not checked:
            // the consoles keep one-line elements, and these rules are about layout, not correctness
            'vue/max-attributes-per-line': 'off',
            'vue/singleline-html-element-content-newline': 'off',
            'vue/multiline-html-element-content-newline': 'off',
            'vue/html-indent': 'off',
            'vue/first-attribute-linebreak': 'off',
            'vue/html-closing-bracket-newline': 'off',
        },
    },
    {
        // the policy tree editor edits one reactive tree, owned by the page, in place: each level
        // changes its own node's fields and children, and never reassigns the node it was given
        files: ['apps/console/src/admin/areas/policies/PolicyNodeEditor.vue'],
        rules: { 'vue/no-mutating-props': ['error', { shallowOnly: true }] },
    },
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
        files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.{ts,vue}', 'packages/*/test/**/*.ts', 'bench/**/*.{ts,mjs}', 'eslint-rules/**/*.{js,ts}'],
        plugins: { realmgate },
        rules: { 'realmgate/no-tracker-references': 'error' },
    },
);
