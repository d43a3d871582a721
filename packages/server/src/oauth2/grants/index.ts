import { clientCredentialsGrant } from './client-credentials.js';
import type { GrantDeps, GrantHandler } from './contract.js';
import { passwordGrant } from './password.js';
import { refreshTokenGrant } from './refresh-token.js';

export type { GrantDeps, GrantHandler, GrantRequest, TokenResponse } from './contract.js';

/** The grants `POST /token` answers, explicitly listed (DESIGN.md §3). */
export function grantRegistry(deps: GrantDeps): readonly GrantHandler[] {
    return [passwordGrant(deps), clientCredentialsGrant(deps), refreshTokenGrant(deps)];
}
