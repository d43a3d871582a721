import { defineConfig } from 'vitepress';

// `ignoreDeadLinks` is deliberately not set: VitePress then fails the build on a link to a page
// that does not exist, which is the documentation's link check (npm run docs:build, .ci/run).
export default defineConfig({
    title: 'Realmgate',
    description: 'A multi-realm OAuth 2.0 / OpenID Connect identity and access server',
    // the generated reference fragment is included by reference/api.md, and the build scripts are no pages
    srcExclude: ['reference/generated/**', 'scripts/**'],
    cleanUrls: true,
    themeConfig: {
        search: { provider: 'local' },
        outline: [2, 3],
        nav: [
            { text: 'Guide', link: '/guide/getting-started' },
            { text: 'Operations', link: '/operations/roles' },
            { text: 'Reference', link: '/reference/configuration' },
        ],
        sidebar: [
            {
                text: 'Guide',
                items: [
                    { text: 'Getting started', link: '/guide/getting-started' },
                    { text: 'Sign in to an application', link: '/guide/sign-in' },
                    { text: 'Device flow', link: '/guide/device-flow' },
                    { text: 'Two-factor sign-in', link: '/guide/two-factor' },
                    { text: 'Passkeys', link: '/guide/passkeys' },
                    { text: 'Identity providers', link: '/guide/identity-providers' },
                    { text: 'Mail: activation and recovery', link: '/guide/mail' },
                    { text: 'Modern OAuth', link: '/guide/modern-oauth' },
                    { text: 'Consoles', link: '/guide/consoles' },
                    { text: 'Default roles', link: '/guide/default-roles' },
                    { text: 'Branding and languages', link: '/guide/branding' },
                    { text: 'Client kit', link: '/guide/client-kit' },
                    { text: 'Access library', link: '/guide/access-library' },
                    { text: 'Catalog for resource servers', link: '/guide/catalog' },
                    { text: 'Resource-server adapter', link: '/guide/adapter' },
                    { text: 'Packages', link: '/guide/packages' },
                ],
            },
            {
                text: 'Operations',
                items: [
                    { text: 'Roles and the CLI', link: '/operations/roles' },
                    { text: 'The worker', link: '/operations/worker' },
                    { text: 'Health and metrics', link: '/operations/health-and-metrics' },
                    { text: 'Provisioning', link: '/operations/provisioning' },
                    { text: 'Events', link: '/operations/events' },
                    { text: 'Caches and the bus', link: '/operations/caches' },
                    { text: 'Replicas', link: '/operations/replicas' },
                    { text: 'Scaling figures', link: '/operations/scaling' },
                    { text: 'Deploy', link: '/operations/deploy' },
                    { text: 'Database durability and PgBouncer', link: '/operations/database' },
                    { text: 'Memory', link: '/operations/memory' },
                    { text: 'Request limits', link: '/operations/request-limits' },
                    { text: 'Production checklist', link: '/operations/production-checklist' },
                    { text: 'Benchmarks', link: '/operations/benchmarks' },
                ],
            },
            {
                text: 'Reference',
                items: [
                    { text: 'Configuration', link: '/reference/configuration' },
                    { text: 'HTTP API', link: '/reference/api' },
                    { text: 'API document, headers, CORS', link: '/reference/api-document' },
                    { text: 'Errors', link: '/reference/errors' },
                    { text: 'Architecture', link: '/architecture' },
                    { text: 'Indexes', link: '/indexes' },
                    { text: 'Workspace layout', link: '/reference/workspace' },
                    { text: 'Tests and CI', link: '/reference/ci' },
                ],
            },
        ],
    },
});
