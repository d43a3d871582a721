import type { Lifecycle } from '../runtime/lifecycle.js';
import type { VerifyingKeyMemo } from '../authn/passkey-signature.js';
import type { OutboundPolicy } from '../outbound/address-policy.js';
import type { OutboundFetch } from '../outbound/guarded-fetch.js';
import type { CacheRegistry } from '../cache/registry.js';
import type { Bus } from '../bus/bus.js';
import type { CommittedEvent } from '../storage/write-transaction.js';
import type { Metrics } from './metrics.js';
import type { CatalogCache } from '../authz/catalog-cache.js';
import type { ClientSecretVerifier } from '../secrets/client-secret-verifier.js';
import type { Config } from '../config/schema.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { KeyStore } from '../keys/store.js';
import type { RequestLimits } from '../limits/request-limits.js';
import type { FastifyBaseLogger } from 'fastify';
import type { BackchannelLogout } from '../oauth2/backchannel-logout.js';
import type { DeviceAuthorizationEndpoint } from '../oauth2/device/authorization-endpoint.js';
import type { DeviceVerification } from '../oauth2/device/verification.js';
import type { IntrospectionEndpoint } from '../oauth2/introspection-endpoint.js';
import type { RevocationEndpoint } from '../oauth2/revocation-endpoint.js';
import type { TokenEndpoint } from '../oauth2/token-endpoint.js';
import type { UserinfoEndpoint } from '../oauth2/userinfo.js';
import type { PasswordHasher } from '../secrets/passwords.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { TokenService } from '../tokens/service.js';
import type { SessionStore } from '../tokens/sessions.js';
import type { DetachedEventLog } from '../storage/events.js';
import type { AuthConsole } from '../views/contract.js';
import type { AccountService } from '../domains/account/service.js';
import type { Mailer } from '../mail/mailer.js';
import type { ReplayGuard } from '../limits/replay-guard.js';
import type { AuthorizationRequests } from '../oauth2/authorize/request-source.js';
import type { PushedAuthorizationEndpoint } from '../oauth2/pushed-authorization-endpoint.js';
import type { ClientKeys } from '../oauth2/client-keys.js';
import type { DpopVerifier } from '../authn/dpop-proof.js';

/** Everything a route or service may depend on, constructed here and nowhere else (DESIGN.md §3). */
export interface AppDeps {
    config: Config;
    /** whether the process is draining before it stops (runtime/graceful-shutdown.ts): readiness answers 503 */
    lifecycle: Lifecycle;
    handle: DatabaseHandle;
    db: DatabaseHandle['db'];
    catalog: CatalogCache;
    /** the realtime bus: entity events and catalog invalidation, across replicas with Redis */
    bus: Bus;
    /** hands a committed write's entity events to the bus (storage/write-transaction.ts `announce`) */
    announce(events: readonly CommittedEvent[]): Promise<void>;
    /** every cache of the process, for /metrics (none unbounded, every one reported) */
    caches: CacheRegistry;
    passwords: PasswordHasher;
    secrets: SecretBox;
    clientSecrets: ClientSecretVerifier;
    keys: KeyStore;
    sessions: SessionStore;
    /** the event log's entries written beside a request (sign-ins, failures, issuance, session ends) */
    events: DetachedEventLog;
    /** OIDC Back-Channel Logout: the deliveries the sessions store schedules; settled() waits for them */
    backchannelLogout: BackchannelLogout;
    /** the hosts realm administrators' URLs may reach (OUTBOUND_ALLOWED_HOSTS): LDAP connections judge their address by it */
    outbound: OutboundPolicy;
    /** the fetch of upstream identity providers and back-channel logout, through that policy after DNS resolution */
    outboundFetch: OutboundFetch;
    /** the app's logger, for what wire built before it existed (back-channel logout warnings) */
    logTo(logger: FastifyBaseLogger): void;
    tokens: TokenService;
    /** the authorization endpoint's requests from the query, a pushed reference or a carried form (RFC 9126), validated once for all */
    authorizationRequests: AuthorizationRequests;
    /** `POST /par` (RFC 9126) without its transport */
    pushedAuthorizationEndpoint: PushedAuthorizationEndpoint;
    /** `POST /token` without its transport, over the explicit grant registry */
    tokenEndpoint: TokenEndpoint;
    /** `POST /token/revoke` (RFC 7009) without its transport */
    revocationEndpoint: RevocationEndpoint;
    /** `POST /token/introspect` (RFC 7662) and `GET /sessions/@me/introspect` without their transport */
    introspectionEndpoint: IntrospectionEndpoint;
    /** `GET`/`POST /userinfo` (OpenID Connect Core §5.3) without their transport */
    userinfoEndpoint: UserinfoEndpoint;
    /** `POST /device_authorization` (RFC 8628 §3.1) without its transport */
    deviceAuthorizationEndpoint: DeviceAuthorizationEndpoint;
    /** the user's side of the device flow (RFC 8628 §3.3): the API routes and the /device page */
    deviceVerification: DeviceVerification;
    /** spec Limits: failed authentications per address, budgets per identity, the login gate */
    limits: RequestLimits;
    /** single-use identifiers (client assertions, DPoP proofs) shared by every replica: Redis, else the database */
    replayGuard: ReplayGuard;
    /** a client's public keys for a JWS it signed (client assertions, request objects): inline jwks or its jwksUri */
    clientKeys: ClientKeys;
    /** passkeys' verifying keys, remembered (authn/passkey-signature.ts) */
    passkeyKeys: VerifyingKeyMemo;
    /** DPoP proofs (RFC 9449) at /token, the API routes and /userinfo, and the server's nonces */
    dpop: DpopVerifier;
    /** the Prometheus registry and the counters the routes feed */
    metrics: Metrics;
    /** the auth pages (views/, or the module AUTH_CONSOLE_PATH names) */
    views: AuthConsole;
    /** the mail relay (SMTP_URL); null when none is configured */
    mailer: Mailer | null;
    /** self-registration, activation and password recovery by mail */
    account: AccountService;
}
