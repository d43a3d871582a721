/**
 * The hosts the tests' own upstreams listen on (OpenID providers, slapd, back-channel receivers):
 * the test servers allow them through OUTBOUND_ALLOWED_HOSTS, which refuses loopback by default
 * (outbound/address-policy.ts). A module of its own, without imports: the run's global setup reaches
 * it through server-process.ts before any package is built.
 */
export const LOOPBACK_UPSTREAMS = ['localhost', '127.0.0.0/8', '::1'];
