import { randomUUID } from 'node:crypto';
import { DEVICE_CODE_GRANT_TYPE, ErrorCode } from '@realmgate/core';
import type { DialectName } from '../../db/values.js';
import { classifyDbError } from '../../db/errors.js';
import type { RealmRef } from '../../storage/realms.js';
import { insertDeviceCode } from '../../storage/device-codes.js';
import { authenticateClient, clientAllowsGrant, type ClientAuthDeps, type RequestClient } from '../client-auth/authenticate.js';
import { invalidClient, oauthError } from '../errors.js';
import { resolveScope } from '../grants/scope.js';
import { protocolEndpoint, required, step, type Step } from '../pipeline.js';
import { bodyCredentialsBesideBasic, parseParameters, presentedClientId, realmOfRequest } from '../steps.js';
import { randomToken, sha256Hex } from '../../secrets/digests.js';
import { newUserCode } from './codes.js';

/** RFC 8628 §3.2 expires_in: ten minutes to walk to another device and approve */
const DEVICE_CODE_LIFETIME_SECONDS = 600;
/** RFC 8628 §3.2 interval (its default, 5 s) */
const DEVICE_POLL_INTERVAL_SECONDS = 5;

export interface DeviceAuthorizationRequest {
    body: unknown;
    authorization: string | undefined;
}

/** RFC 8628 §3.2 device authorization response. */
export interface DeviceAuthorizationResponse {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    expires_in: number;
    interval: number;
}

export interface DeviceAuthorizationDeps extends ClientAuthDeps {
    dialect: DialectName;
    publicUrl: string;
}

interface DeviceRequestState {
    readonly request: DeviceAuthorizationRequest;
    readonly query: undefined;
    readonly body: unknown;
    params: Record<string, string>;
    realm: RealmRef | null;
    client: RequestClient | null;
    scope: string | null;
    response: DeviceAuthorizationResponse | null;
}

/** A unique-index collision of a user code (2^-34 a pair) is retried with a fresh one this many times. */
const USER_CODE_ATTEMPTS = 3;

/**
 * `POST /device_authorization` without its transport (RFC 8628 §3.1–3.2), the token endpoint's
 * style: parse parameters → resolve realm (of the presented client) → authenticate client |
 * (charged) | client allows the device grant → scope → mint the codes.
 */
export function createDeviceAuthorizationEndpoint(deps: DeviceAuthorizationDeps) {
    const base = deps.publicUrl.replace(/\/+$/, '');

    const resolveRealm: Step<DeviceRequestState> = step('resolve realm', async (state) => {
        state.realm = await realmOfRequest(deps.db, state.params, { credentialId: presentedClientId(state.params, state.request.authorization) }, deps.lookups);
    });

    /** RFC 8628 §3.1: the client authenticates as at the token endpoint; a public one names itself with client_id */
    const authenticate: Step<DeviceRequestState> = step('authenticate client', async (state) => {
        const authorization = state.request.authorization;
        const client = await authenticateClient(deps, required(state.realm, 'realm').id, authorization, bodyCredentialsBesideBasic(state.params, authorization));
        if (!client) throw invalidClient('The device authorization request needs client_id or client authentication (RFC 8628 §3.1).');
        state.client = client;
    });

    /** spec Authentication 14: the client must list the device grant's URN (null grantTypes does not) */
    const clientAllows: Step<DeviceRequestState> = step('client allows the device grant', (state) => {
        if (!clientAllowsGrant(required(state.client, 'client').row, DEVICE_CODE_GRANT_TYPE)) {
            throw oauthError(ErrorCode.UNAUTHORIZED_CLIENT, `The client may not use the ${DEVICE_CODE_GRANT_TYPE} grant.`);
        }
    });

    /** RFC 8628 §3.1 scope, resolved as for every other grant (grants/scope.ts) */
    const scope: Step<DeviceRequestState> = step('resolve scope', async (state) => {
        state.scope = await resolveScope(deps.db, required(state.realm, 'realm').id, state.params.scope, required(state.client, 'client').row.id);
    });

    const mint: Step<DeviceRequestState> = step('mint codes', async (state) => {
        const deviceCode = randomToken();
        for (let attempt = 1; ; attempt++) {
            const userCode = newUserCode();
            try {
                await insertDeviceCode(deps.db, deps.dialect, {
                    id: randomUUID(), deviceCodeDigest: sha256Hex(deviceCode), userCodeDigest: sha256Hex(userCode.replace('-', '')),
                    realmId: required(state.realm, 'realm').id, clientId: required(state.client, 'client').row.id, scope: required(state.scope, 'scope'),
                    interval: DEVICE_POLL_INTERVAL_SECONDS, expiresAt: new Date(Date.now() + DEVICE_CODE_LIFETIME_SECONDS * 1000),
                });
            } catch (error) {
                if (attempt < USER_CODE_ATTEMPTS && classifyDbError(error)?.kind === 'unique') continue;
                throw error;
            }
            state.response = {
                device_code: deviceCode,
                user_code: userCode,
                verification_uri: `${base}/device`,
                verification_uri_complete: `${base}/device?user_code=${encodeURIComponent(userCode)}`,
                expires_in: DEVICE_CODE_LIFETIME_SECONDS,
                interval: DEVICE_POLL_INTERVAL_SECONDS,
            };
            return;
        }
    });

    return protocolEndpoint<DeviceAuthorizationRequest, DeviceRequestState, DeviceAuthorizationResponse>({
        start: (request) => ({ request, query: undefined, body: request.body, params: {}, realm: null, client: null, scope: null, response: null }),
        authenticate: [parseParameters, resolveRealm, authenticate],
        // spec Limits: the client that proved its secret is charged, else the address
        charge: (state) => (state.client?.authenticated ? { kind: 'client', id: state.client.row.id } : 'address'),
        handle: [clientAllows, scope, mint],
        answer: (state) => required(state.response, 'response'),
    });
}

export type DeviceAuthorizationEndpoint = ReturnType<typeof createDeviceAuthorizationEndpoint>;
