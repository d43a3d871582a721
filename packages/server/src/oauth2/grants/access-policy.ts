import { ErrorCode } from '@realmgate/core';
import { clientAccessAllows } from '../../authz/client-access.js';
import type { TokenSubject } from '../../tokens/claims.js';
import { invalidGrant, oauthError } from '../errors.js';
import type { GrantRequest } from './contract.js';

/**
 * The token request's client's access policy must admit the subject before anything is issued
 * (spec client field `accessPolicyId`). Refused as RFC 6749 §5.2 prescribes per grant:
 * for the password and refresh grants the grant itself may not be used through this client —
 * `invalid_grant`; for client_credentials the authenticated client is not authorized to use the
 * grant — `unauthorized_client` (its credentials were right, so not `invalid_client`, a failed
 * authentication; `access_denied` belongs to the authorization endpoint, §4.1.2.1). No client, or
 * one without a policy: nothing to evaluate, no statement run.
 */
export async function assertClientAdmits(request: GrantRequest, subject: TokenSubject): Promise<void> {
    const client = request.client?.row;
    if (!client || client.accessPolicyId === null) return;
    const identity = {
        id: subject.id, type: subject.kind, realmId: subject.realmId, realmName: subject.realmName,
        clientId: subject.kind === 'client' ? subject.id : null,
    };
    if (await clientAccessAllows(request.db, client, identity)) return;
    if (subject.kind === 'client') throw oauthError(ErrorCode.UNAUTHORIZED_CLIENT, "The client's access policy does not admit it.");
    throw invalidGrant("The client's access policy does not admit this user.");
}
