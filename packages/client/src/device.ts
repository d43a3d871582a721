import { ErrorCode } from '@realmgate/core';
import type { RealmgateClient } from './client.js';
import { isRealmgateError } from './errors.js';
import type { Routes } from './generated/routes.js';
import { protocolRequest, requestToken, type ClientCredentials, type RealmSelector, type TokenSet } from './tokens.js';

/* The device authorization grant (RFC 8628). */

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The device authorization response (RFC 8628 §3.2), as the server's contract declares it. */
export type DeviceAuthorization = Routes['POST /device_authorization']['response'];

/** POST /device_authorization (RFC 8628 §3.1): the codes to show the user. */
export async function startDeviceAuthorization(client: RealmgateClient, credentials: ClientCredentials & RealmSelector & { scope?: string }): Promise<DeviceAuthorization> {
    return client.postDeviceAuthorization(protocolRequest({ scope: credentials.scope }, credentials, credentials));
}

export interface DevicePollOptions {
    /** the wait between polls, replaceable for tests */
    sleep?: (milliseconds: number) => Promise<void>;
    signal?: AbortSignal;
}

const wait = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/**
 * Polls the token endpoint until the user decides (RFC 8628 §3.4–3.5): authorization_pending waits
 * the interval, slow_down adds 5 seconds to it for this and every later poll; any other answer
 * (device_code_expired, access_denied) is thrown.
 */
export async function pollDeviceToken(client: RealmgateClient, authorization: Pick<DeviceAuthorization, 'device_code' | 'interval'>, credentials: ClientCredentials, options: DevicePollOptions = {}): Promise<TokenSet> {
    const sleep = options.sleep ?? wait;
    let interval = authorization.interval;
    for (;;) {
        options.signal?.throwIfAborted();
        await sleep(interval * 1000);
        try {
            return await requestToken(client, { grant_type: DEVICE_CODE_GRANT, device_code: authorization.device_code }, credentials);
        } catch (error) {
            if (!isRealmgateError(error)) throw error;
            if (error.code === ErrorCode.SLOW_DOWN) interval += 5;
            else if (error.code !== ErrorCode.AUTHORIZATION_PENDING) throw error;
        }
    }
}
