import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import type { Grant, GrantDeps, GrantHandler } from './contract.js';
import { deviceCodeGrant } from './device-code.js';
import { passwordGrant } from './password.js';
import { mfaOtpGrant } from './mfa-otp.js';
import { refreshTokenGrant } from './refresh-token.js';
import { tokenExchangeGrant } from './token-exchange.js';

/** The grants `POST /token` answers, explicitly listed (DESIGN.md §3); discovery advertises exactly these. */
const GRANTS: readonly Grant[] = [passwordGrant, clientCredentialsGrant, refreshTokenGrant, authorizationCodeGrant, deviceCodeGrant, mfaOtpGrant, tokenExchangeGrant];

/** The grants constructed with their dependencies (wire.ts). */
export function grantRegistry(deps: GrantDeps): readonly GrantHandler[] {
    return GRANTS.map(({ create, ...definition }) => ({ ...definition, ...create(deps) }));
}

/** The `grant_type` values of the registry (RFC 8414 §2 grant_types_supported). */
export function supportedGrantTypes(): string[] {
    return GRANTS.map((grant) => grant.type);
}
