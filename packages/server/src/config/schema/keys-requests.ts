import type { ConfigKey } from './config.js';

/**
 * How requests are treated: proxies, CORS, outbound hosts, the auth pages, rate limits, logging,
 * behaviour settings, DPoP and the request middleware (spec Limits).
 * Order matters: a default that refers to `$NAME` must come after NAME's row (config/schema.ts assembles
 * the groups in this order).
 */
export const REQUEST_KEYS = [
    {
        key: 'trustProxy',
        env: 'TRUST_PROXY',
        default: 'true',
        description: '`true` / `false`, a hop count, or a comma-separated list of addresses / CIDR ranges (or `loopback`, `linklocal`, `uniquelocal`)',
    },
    {
        key: 'corsOrigins',
        env: 'CORS_ORIGINS',
        default: null,
        description: 'extra origins (`https://app.example`, comma- or space-separated) allowed for CORS beyond those derived from each client\'s `redirectUri` and `baseUrl`',
    },
    {
        key: 'outboundAllowedHosts',
        env: 'OUTBOUND_ALLOWED_HOSTS',
        default: null,
        description: 'comma-separated host names, IP addresses and CIDR ranges (`ldap.internal,10.0.0.0/8,::1`) that back-channel logout URIs, identity-provider URLs and LDAP URLs may reach although they are loopback, private, link-local or otherwise special-purpose; unset: such targets are refused when written (400) and again after DNS resolution when connecting',
    },
    {
        key: 'authConsolePath',
        env: 'AUTH_CONSOLE_PATH',
        default: null,
        description: 'module replacing the built-in sign-in, consent, logout and error pages (same exports); the boot is refused unless it declares `CONTRACT_VERSION` 5',
    },
    { key: 'rateLimit.userMax', env: 'RATE_LIMIT_USER_MAX', default: '6000', description: 'requests per minute per user' },
    { key: 'rateLimit.clientMax', env: 'RATE_LIMIT_CLIENT_MAX', default: '300000', description: 'requests per minute per client' },
    {
        key: 'rateLimit.anonymousMax',
        env: 'RATE_LIMIT_ANONYMOUS_MAX',
        default: '1200',
        description: 'requests per minute per address without credentials',
    },
    { key: 'logLevel', env: 'LOG_LEVEL', default: 'info', description: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`' },
    {
        key: 'permissionsDefaultPolicyAssignment',
        env: 'PERMISSIONS_DEFAULT_POLICY_ASSIGNMENT',
        default: 'true',
        description: 'bind the global policy `system.default` (the realm-reach check) to every permission created; `false` creates permissions without it, so the `realmScope` of their grants means nothing (a warning is logged at boot)',
    },
    {
        key: 'querySchemaDiscoveryEnabled',
        env: 'QUERY_SCHEMA_DISCOVERY_ENABLED',
        default: 'true',
        description: 'serve `GET /schemas` and `GET /<collection>/@schema`; `false` answers 404',
    },
    {
        key: 'docsEnabled',
        env: 'DOCS_ENABLED',
        default: 'true',
        description: 'serve the API explorer (swagger-ui) under `/docs`; `false` answers 404 there, and `GET /openapi.json` is still served',
    },
    {
        key: 'userAuthBasic',
        env: 'USER_AUTH_BASIC',
        default: 'true',
        description: 'accept HTTP Basic with a user\'s name or id and password on API routes; `false` refuses it (Basic with a client\'s credentials is unaffected)',
    },
    {
        key: 'mtlsPublicUrl',
        env: 'MTLS_PUBLIC_URL',
        default: null,
        description: 'absolute https URL of a mutual-TLS listener (RFC 8705): discovery then carries `mtls_endpoint_aliases` with the token and device authorization endpoints under it',
    },
    {
        key: 'dpop.nonceRequired',
        env: 'DPOP_NONCE_REQUIRED',
        default: 'false',
        description: 'DPoP proofs (RFC 9449) at `/token`, the API routes and `/userinfo` must carry a server-provided nonce: a proof without the current one answers `use_dpop_nonce` with a fresh `DPoP-Nonce` header (RFC 9449 §8, §9); nonces rotate every 5 minutes and the previous one stays accepted',
    },
    {
        key: 'dpop.nonceSecret',
        env: 'DPOP_NONCE_SECRET',
        default: null,
        description: 'the secret DPoP nonces are derived from, the same on every replica; unset: derived from SECRETS_ENCRYPTION_KEY, else random per process (then a nonce holds on the replica that issued it only)',
        secret: true,
    },
    {
        key: 'middlewareBody',
        env: 'MIDDLEWARE_BODY',
        default: 'true',
        description: 'body parsers under the 10 MB cap: `true`, `false` (all off: a body answers 400 `unsupported_media_type`), or JSON such as `{"json":{"limit":"1mb"},"text":false}` per parser (`json`, `urlencoded`, `text`; each `true`, `false` or `{"limit": bytes or "512kb"}`; a parser left out stays on and capped)',
    },
    {
        key: 'middlewareCookie',
        env: 'MIDDLEWARE_COOKIE',
        default: 'true',
        description: 'read the Cookie header; `false` ignores cookies (the console session and the sign-in pages then do not work)',
    },
    {
        key: 'middlewareQuery',
        env: 'MIDDLEWARE_QUERY',
        default: 'true',
        description: 'query-string limits: `true` (`depth` 5 bracket levels, `arrayLimit` 100 values of one repeated key, `parameterLimit` 1000 keys), `false` (no limits; the query string is still parsed, as the protocol routes need it), or JSON such as `{"depth":3,"arrayLimit":20}`; a query beyond a limit answers 400 with `issues`',
    },
    {
        key: 'middlewareRateLimit',
        env: 'MIDDLEWARE_RATE_LIMIT',
        default: 'true',
        description: 'the per-identity budgets (the second stage of rate limiting): `true`, `false` (budgets lifted; failed-authentication refusals stay), or JSON `{"max": n}` replacing all three budgets (prefer the RATE_LIMIT_*_MAX keys)',
    },
] as const satisfies readonly ConfigKey[];
