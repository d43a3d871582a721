import { DEVICE_CODE_GRANT_TYPE, ErrorCode } from '@realmgate/core';
import type { DialectName } from '../../db/values.js';
import { AppError } from '../../errors/app-error.js';
import { consumeDeviceCode, findByDeviceCode, recordDevicePoll, type DeviceCode } from '../../storage/device-codes.js';
import { findSessionLife } from '../../storage/sessions.js';
import { findSubjectState } from '../../storage/subjects.js';
import { sha256Hex } from '../../secrets/digests.js';
import { invalidClient, invalidGrant, invalidRequest } from '../errors.js';
import { assertClientAdmits } from './access-policy.js';
import { realmAudienceOf, senderConstraintOf, tokenResponse, type Grant, type GrantRequest } from './contract.js';

/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval for every later poll. */
const SLOW_DOWN_STEP_SECONDS = 5;

/** RFC 8628 §3.5 errors answer 400 at the token endpoint (access_denied is 403 elsewhere). */
const pollError = (code: ErrorCode, description: string) => new AppError(code, description, { statusCode: 400 });

/**
 * A pending request polled again: authorization_pending, or slow_down when polled before its
 * interval has passed since the previous poll — and then the interval grows (RFC 8628 §3.5).
 * slow_down is "a variant of authorization_pending": a decided request answers at once.
 */
async function pending(dialect: DialectName, request: GrantRequest, code: DeviceCode): Promise<never> {
    const now = new Date();
    const tooSoon = code.polledAt !== null && now.getTime() - code.polledAt.getTime() < code.interval * 1000;
    const interval = tooSoon ? code.interval + SLOW_DOWN_STEP_SECONDS : code.interval;
    await recordDevicePoll(request.db, dialect, code.id, now, interval);
    if (tooSoon) throw pollError(ErrorCode.SLOW_DOWN, `Polled too often; wait ${interval} seconds between polls.`);
    throw pollError(ErrorCode.AUTHORIZATION_PENDING, 'The user has not decided yet.');
}

/**
 * RFC 8628 §3.4–3.5: the device polls with its device code. The tokens (access, refresh, an ID
 * token with `openid`) are issued once, in a new session of the client whose parent is the session
 * the user approved in (its parent_id) — so ending that session ends this one. A code
 * approved in a session since revoked (sign-out, password change, deactivation), or by a user
 * since deactivated, is not redeemed (spec Authentication 12).
 */
export const deviceCodeGrant: Grant = {
    type: DEVICE_CODE_GRANT_TYPE,
    // §3.4
    parameters: [{ name: 'device_code', required: true }],
    // §3.4: a public client names itself with client_id, a confidential one authenticates
    clientAuthentication: 'optional',
    create: (deps) => ({
        async handle(request) {
            if (!request.client) throw invalidClient('The device code grant needs client_id or client authentication (RFC 8628 §3.4).');
            const deviceCode = request.params.device_code;
            if (!deviceCode) throw invalidRequest('The device code grant needs device_code.');
            const code = await findByDeviceCode(request.db, sha256Hex(deviceCode));
            // RFC 8628 §3.4: the code was issued to the polling client, in this realm
            if (!code || code.clientId !== request.client.row.id || code.realmId !== request.realm.id) throw invalidGrant('The device code is not valid.');
            if (code.consumedAt !== null) throw invalidGrant('The device code was already redeemed.');
            if (code.expiresAt.getTime() <= Date.now()) throw pollError(ErrorCode.DEVICE_CODE_EXPIRED, 'The device code has expired.');
            if (code.status === 'denied') throw pollError(ErrorCode.ACCESS_DENIED, 'The user denied the authorization request.');
            if (code.status === 'pending' || code.userId === null) return pending(deps.dialect, request, code);
            const session = code.sessionId === null ? null : await findSessionLife(request.db, code.sessionId);
            if (code.sessionId !== null && (!session || session.revokedAt !== null || session.expiresAt.getTime() <= Date.now())) {
                throw invalidGrant('The session the request was approved in has ended.');
            }
            const user = await findSubjectState(request.db, 'user', code.userId);
            if (!user || user.realmId !== request.realm.id || !user.active) throw invalidGrant('The user is inactive.');
            const subject = { id: code.userId, kind: 'user' as const, realmId: request.realm.id, realmName: request.realm.name };
            // the client's access policy is asked again at issuance (it may have changed since the approval)
            await assertClientAdmits(request, subject);
            if (!(await consumeDeviceCode(request.db, deps.dialect, code.id))) throw invalidGrant('The device code was already redeemed.');
            const { accessMaxAge, refreshMaxAge } = deps.tokens.settings;
            const clientId = request.client.row.id;
            const sessionId = await deps.sessions.create(request.db, {
                subject, clientId, ipAddress: request.ipAddress, userAgent: request.userAgent, parentId: code.sessionId,
                expiresAt: new Date(Date.now() + 1000 * Math.max(refreshMaxAge, accessMaxAge)),
            });
            const issued = await deps.tokens.issue(request.db, { subject, clientId, scope: code.scope, sessionId, refresh: true, ...realmAudienceOf(request), ...senderConstraintOf(request) });
            // OpenID Connect Core §2 auth_time: when the user authenticated, i.e. the approving session's start
            return tokenResponse(deps, request, { subject, clientId, scope: code.scope, sessionId, authTime: session?.createdAt ?? new Date() }, issued);
        },
    }),
};
