import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { DeviceAuthorizationResponse } from '../src/oauth2/device/authorization-endpoint.js';
import { sha256Hex } from '../src/secrets/digests.js';
import { toDbDate } from '../src/db/values.js';

/* The device flow's requests (RFC 8628) for the device suites: real routes, rows adjusted only where time must pass. */

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** A client as the device presents it: a confidential one with Basic, a public one by client_id. */
export interface DeviceClient {
    id: string;
    secret?: string;
}

const credentials = (app: TestApp, client: DeviceClient) => (client.secret ?
    { as: app.basic(client.id, client.secret), extra: {} } : { as: null, extra: { client_id: client.id } });

export async function requestDeviceAuthorization(app: TestApp, client: DeviceClient, payload: Record<string, string> = {}) {
    const { as, extra } = credentials(app, client);
    return app.request({ method: 'POST', url: '/device_authorization', as, payload: { ...extra, ...payload } });
}

export async function authorizeDevice(app: TestApp, client: DeviceClient, payload: Record<string, string> = {}): Promise<DeviceAuthorizationResponse> {
    const response = await requestDeviceAuthorization(app, client, payload);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as DeviceAuthorizationResponse;
}

export async function poll(app: TestApp, client: DeviceClient, deviceCode: string) {
    const { as, extra } = credentials(app, client);
    return app.request({ method: 'POST', url: '/token', as, payload: { grant_type: DEVICE_GRANT, device_code: deviceCode, ...extra } });
}

/** The RFC `error` of a failed poll, after checking its status. */
export async function pollError(app: TestApp, client: DeviceClient, deviceCode: string, status = 400): Promise<{ error: string; code: string }> {
    const response = await poll(app, client, deviceCode);
    expect(response.statusCode, response.body).toBe(status);
    return response.json() as { error: string; code: string };
}

export async function verify(app: TestApp, action: 'lookup' | 'approve' | 'deny', as: string, userCode: string, remoteAddress = '127.0.0.1') {
    return app.request({ method: 'POST', url: `/device_authorization/${action}`, as, payload: { user_code: userCode }, remoteAddress });
}

/** Moves a device code's clock: its expiry or its last poll, as if time had passed. */
export async function adjustDeviceCode(app: TestApp, deviceCode: string, change: { expiresAt?: Date; polledAt?: Date }) {
    const dialect = app.deps.handle.dialect;
    await app.deps.db.updateTable('auth_device_codes').set({
        ...(change.expiresAt ? { expires_at: toDbDate(dialect, change.expiresAt) } : {}),
        ...(change.polledAt ? { polled_at: toDbDate(dialect, change.polledAt) } : {}),
    }).where('device_code_digest', '=', sha256Hex(deviceCode)).execute();
}

export async function deviceCodeRow(app: TestApp, deviceCode: string) {
    return app.deps.db.selectFrom('auth_device_codes').selectAll().where('device_code_digest', '=', sha256Hex(deviceCode)).executeTakeFirstOrThrow();
}
