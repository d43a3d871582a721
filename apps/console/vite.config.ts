import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

/*
 * One Vue application, two entries: the admin console at /console/admin/ and the account
 * console at /console/account/. They share one build under base /console/: the hashed files land in
 * dist/assets (served at /console/assets/, cached as immutable), the pages at dist/admin/index.html
 * and dist/account/index.html (served with no-cache). Workspace packages resolve to their
 * TypeScript sources ("source" condition), so the console does not wait for their own builds.
 */
export default defineConfig({
    base: '/console/',
    plugins: [vue()],
    resolve: { conditions: ['source', 'browser', 'import', 'module', 'default'] },
    build: {
        outDir: 'dist',
        emptyOutDir: true,
        assetsDir: 'assets',
        // the strict Content-Security-Policy allows no inline style or script: CSS goes to files
        cssCodeSplit: true,
        assetsInlineLimit: 0,
        modulePreload: { polyfill: false },
        reportCompressedSize: true,
        rollupOptions: {
            input: {
                admin: fileURLToPath(new URL('admin/index.html', import.meta.url)),
                account: fileURLToPath(new URL('account/index.html', import.meta.url)),
            },
        },
    },
});
