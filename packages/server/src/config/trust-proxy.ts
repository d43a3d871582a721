import type { Config } from './schema.js';

/**
 * The warning of a production boot with `TRUST_PROXY=true` (the spec's default stays; the warning names the risk and the fix):
 * trusting every hop lets a caller name its own address through `X-Forwarded-For`, so it picks its
 * own rate-limit key — escaping the failure lockout, locking out another address — and forges the
 * session `ipAddress`. A hop count or the proxies' addresses trust only what those proxies added.
 * Null when there is nothing to warn about.
 */
export function trustProxyWarning(config: Pick<Config, 'env' | 'trustProxy'>): string | null {
    if (config.env !== 'production' || config.trustProxy !== true) return null;
    return 'TRUST_PROXY=true trusts every X-Forwarded-For hop: a client can choose its own address, '
        + 'escape or misdirect the per-address rate limits and failure lockout, and forge session ipAddress. '
        + 'Set TRUST_PROXY to the number of proxies in front of the server (e.g. 1) or to their addresses/CIDR ranges, '
        + 'or to false when nothing proxies it.';
}

/**
 * Fastify's `trustProxy` for the configured value. A hop count is given as the function
 * proxy-addr's hop count means — the `count` hops nearest the server are trusted proxies, so the
 * client is the rightmost address they did not add — because this Fastify version takes a bare
 * number as "trust nothing" (every client behind the proxy would share the proxy's address and
 * its rate-limit budget). Booleans and address lists pass through (proxy-addr compiles them).
 */
export function fastifyTrustProxy(value: Config['trustProxy']): boolean | string | ((address: string, hop: number) => boolean) {
    if (typeof value !== 'number') return value;
    return (_address, hop) => hop < value;
}
