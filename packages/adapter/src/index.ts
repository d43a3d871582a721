export { createVerifier } from './verifier.js';
export type { Introspection, RealmgateAuth, VerificationMode, Verifier, VerifierOptions } from './verifier.js';
export { deniedError, denial, isDeniedError } from './respond.js';
export type { Denial, DenialListener, DeniedError, PermissionRequirement } from './respond.js';
export type { AccessTokenClaims } from './jwt.js';
export { requestUrl } from './dpop.js';
export type { DpopBindingOptions, DpopRequest } from './dpop.js';
