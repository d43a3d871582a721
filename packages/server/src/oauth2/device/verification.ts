import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import { clientAccessAllows } from '../../authz/client-access.js';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import { AppError } from '../../errors/app-error.js';
import { ANONYMOUS_ENTRY, type DeviceVerificationThrottle } from '../../limits/device-verification.js';
import { decideDeviceCode, findPendingByUserCode, type PendingDeviceCode } from '../../storage/device-codes.js';
import { scopeNames } from '../grants/scope.js';
import { sha256Hex } from '../../secrets/digests.js';
import { normalizeUserCode } from './codes.js';

/**
 * The user's side of the device flow (RFC 8628 §3.3), without its transport: the API routes
 * (`POST /device_authorization/lookup|approve|deny`, a user bearer) call it now, the `/device`
 * page later with the console session's user.
 */

/** The user entering a code: who, in which session (null: Basic), from which address. */
export interface DeviceVerifier {
    userId: string;
    realmId: string;
    realmName: string | null;
    sessionId: string | null;
    address: string;
}

/** What the user is shown before deciding (RFC 8628 §3.3): the client and the scopes, never the device code. */
export interface DeviceRequestView {
    client: { id: string; name: string; displayName: string | null };
    scopes: string[];
    expiresAt: string;
}

export interface DeviceVerificationDeps {
    db: Kysely<Database>;
    dialect: DialectName;
    throttle: DeviceVerificationThrottle;
}

/**
 * An unknown, expired, decided or other realm's code: one answer for all, so a user of another
 * realm learns nothing of this realm's codes.
 */
function unknownCode(): AppError {
    return new AppError(ErrorCode.ENTITY_NOT_FOUND, 'The user code is unknown or has expired.');
}

export function createDeviceVerification(deps: DeviceVerificationDeps) {
    /** RFC 8628 §5.1: user-code entry is throttled per address and per session (per user without one) */
    const keysOf = (verifier: DeviceVerifier) => [`a:${verifier.address}`, verifier.sessionId ? `s:${verifier.sessionId}` : `u:${verifier.userId}`];

    const pendingIn = async (realmId: string | null, keys: readonly string[], typed: string) => {
        await deps.throttle.admit(keys);
        const code = normalizeUserCode(typed);
        const found = code === null ? undefined : await findPendingByUserCode(deps.db, deps.dialect, realmId, sha256Hex(code));
        if (!found) {
            await deps.throttle.miss(keys);
            throw unknownCode();
        }
        return found;
    };
    const pendingRequest = (verifier: DeviceVerifier, typed: string) => pendingIn(verifier.realmId, keysOf(verifier), typed);

    const viewOf = (found: Awaited<ReturnType<typeof pendingRequest>>): DeviceRequestView => ({
        client: { id: found.client.id, name: found.client.name, displayName: found.client.displayName },
        scopes: scopeNames(found.scope),
        expiresAt: found.expiresAt.toISOString(),
    });

    const decide = async (verifier: DeviceVerifier, typed: string, status: 'approved' | 'denied'): Promise<DeviceRequestView> => {
        const found = await pendingRequest(verifier, typed);
        if (status === 'approved') {
            // the client's access policy must admit the user (spec client field accessPolicyId), here and at issuance
            const identity = { id: verifier.userId, type: 'user' as const, realmId: verifier.realmId, realmName: verifier.realmName, clientId: null };
            if (!(await clientAccessAllows(deps.db, { realmId: found.realmId, accessPolicyId: found.client.accessPolicyId }, identity))) {
                throw new AppError(ErrorCode.ACCESS_DENIED, "The client's access policy does not admit this user.");
            }
        }
        if (!(await decideDeviceCode(deps.db, deps.dialect, found.id, { status, userId: verifier.userId, sessionId: verifier.sessionId }))) {
            // decided or expired since it was read
            throw unknownCode();
        }
        return viewOf(found);
    };

    return {
        /**
         * The `/device` page before it knows the user: the pending request a code names in any realm
         * (user codes are unique across realms), so the page signs the user in to the code's realm.
         * Throttled as every entry is, per address, and per the browser session held — without one,
         * together with every other anonymous entry (ANONYMOUS_ENTRY): the address alone is the
         * client's to choose.
         */
        locate: (entry: { address: string; sessionId: string | null }, typed: string): Promise<PendingDeviceCode> =>
            pendingIn(null, [`a:${entry.address}`, entry.sessionId ? `s:${entry.sessionId}` : ANONYMOUS_ENTRY], typed),
        /** the pending request a user code names */
        lookup: async (verifier: DeviceVerifier, typed: string): Promise<DeviceRequestView> => viewOf(await pendingRequest(verifier, typed)),
        /** RFC 8628 §3.3: the user authorizes the device; the next poll receives the tokens */
        approve: (verifier: DeviceVerifier, typed: string) => decide(verifier, typed, 'approved'),
        /** the user refuses: the next polls answer access_denied (RFC 8628 §3.5) */
        deny: (verifier: DeviceVerifier, typed: string) => decide(verifier, typed, 'denied'),
    };
}

export type DeviceVerification = ReturnType<typeof createDeviceVerification>;
