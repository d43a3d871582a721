import { describeError, isForbidden, isUnauthenticated } from '../shared/api.js';
import { t } from '../shared/i18n/i18n.js';

/**
 * What the account pages share. Every call they make is one a signed-in user may
 * make on its own account: the `@me` routes, POST /users/:id on itself (user_self_manage), its own
 * sessions, authenticators, consents and upstream links.
 */
export interface Me {
    id: string;
    name: string;
    nameLocked?: boolean | null;
    displayName?: string | null;
    firstName?: string | null;
    lastName?: string | null;
    email?: string | null;
    emailVerified?: boolean | null;
    realmId?: string | null;
    createdAt?: string | null;
    [member: string]: unknown;
}

/**
 * A failure made plain for the person. A 401 means the session has ended (revoked elsewhere, a
 * password changed on another device): the console starts the sign-in again (boot.ts), after the
 * message has been on screen for a moment.
 */
export function describeFailure(error: unknown): string {
    if (isUnauthenticated(error)) {
        setTimeout(() => location.reload(), 1500);
        return t('account.sessionEnded');
    }
    if (isForbidden(error)) {
        return `${describeError(error)} ${t('account.mayNotChange')}`;
    }
    return describeError(error);
}

/** Signs the browser in again (after its own session was ended here). */
export function restartSignIn(): void {
    location.reload();
}

/** A form's submit that starts the sign-in again on a 401 (EntityForm still shows the failure). */
export function guarded<A extends unknown[], R>(submit: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args) => {
        try {
            return await submit(...args);
        } catch (failure) {
            if (isUnauthenticated(failure)) describeFailure(failure);
            throw failure;
        }
    };
}
