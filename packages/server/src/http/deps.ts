import type { CatalogCache } from '../authz/catalog-cache.js';
import type { ClientSecretVerifier } from '../secrets/client-secret-verifier.js';
import type { Config } from '../config/schema.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { KeyStore } from '../keys/store.js';
import type { RequestLimits } from '../limits/request-limits.js';
import type { DeviceAuthorizationEndpoint } from '../oauth2/device/authorization-endpoint.js';
import type { DeviceVerification } from '../oauth2/device/verification.js';
import type { IntrospectionEndpoint } from '../oauth2/introspection-endpoint.js';
import type { RevocationEndpoint } from '../oauth2/revocation-endpoint.js';
import type { TokenEndpoint } from '../oauth2/token-endpoint.js';
import type { PasswordHasher } from '../secrets/passwords.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { TokenService } from '../tokens/service.js';
import type { SessionStore } from '../tokens/sessions.js';

/** Everything a route or service may depend on, constructed here and nowhere else (DESIGN.md §3). */
export interface AppDeps {
    config: Config;
    handle: DatabaseHandle;
    db: DatabaseHandle['db'];
    catalog: CatalogCache;
    passwords: PasswordHasher;
    secrets: SecretBox;
    clientSecrets: ClientSecretVerifier;
    keys: KeyStore;
    sessions: SessionStore;
    tokens: TokenService;
    /** `POST /token` without its transport, over the explicit grant registry */
    tokenEndpoint: TokenEndpoint;
    /** `POST /token/revoke` (RFC 7009) without its transport */
    revocationEndpoint: RevocationEndpoint;
    /** `POST /token/introspect` (RFC 7662) and `GET /sessions/@me/introspect` without their transport */
    introspectionEndpoint: IntrospectionEndpoint;
    /** `POST /device_authorization` (RFC 8628 §3.1) without its transport */
    deviceAuthorizationEndpoint: DeviceAuthorizationEndpoint;
    /** the user's side of the device flow (RFC 8628 §3.3): the API routes and the /device page */
    deviceVerification: DeviceVerification;
    /** spec Limits: failed authentications per address, budgets per identity, the login gate */
    limits: RequestLimits;
}
