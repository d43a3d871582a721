export { createVerifier } from './verifier.js';
export type { Introspection, RealmgateAuth, VerificationMode, Verifier, VerifierOptions } from './verifier.js';
export { denial } from './respond.js';
export type { Denial, PermissionRequirement } from './respond.js';
export type { AccessTokenClaims } from './jwt.js';
export { requestUrl } from './dpop.js';
export type { DpopBindingOptions, DpopRequest } from './dpop.js';
