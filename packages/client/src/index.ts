export { basicAuth, createClient } from './client.js';
export type { ClientOptions, RealmgateClient } from './client.js';
export type {
    Auth,
    AuthorizationSource,
    CallOptions,
    FieldName,
    FilterField,
    RouteInput,
    RouteKey,
    RouteMethod,
    RouteMethods,
    RouteQuery,
    RouteResponse,
} from './route-types.js';
export type { RetryPolicy } from './transport.js';
export type { Projected, ResourceNamespace, ResourceNamespaces } from './resources.js';
export { RealmgateError, isRealmgateError } from './errors.js';
export type { RealmgateErrorIssue } from './errors.js';
export { buildQuery } from './query.js';
export type { FilterScalar, FilterValue, ListQuery } from './query.js';
export { clientCredentials, passwordGrant, refreshTokens, refreshingSession, requestToken } from './tokens.js';
export type { ClientCredentials, RealmSelector, RenewalOptions, TokenSet, TokenSource } from './tokens.js';
export { checkIdToken, codeChallenge, createAuthorizationRequest, decodeJwtPayload, handleAuthorizationCallback } from './authorization-code.js';
export type { IdTokenCheckOptions, PendingAuthorization } from './authorization-code.js';
export { DEVICE_CODE_GRANT, pollDeviceToken, startDeviceAuthorization } from './device.js';
export type { DeviceAuthorization, DevicePollOptions } from './device.js';
export { COLLECTIONS, ROUTE_METHODS } from './generated/routes.js';
export type { Routes, Schemas } from './generated/routes.js';
