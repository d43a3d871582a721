import { ErrorCode } from '@realmgate/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleSession } from '../authn/console-session.js';
import { findPendingSignIn, PENDING_SIGN_IN_MAX_AGE, startPendingSignIn } from '../authn/pending-sign-in.js';
import { secondFactorNeeded } from '../authn/second-factor.js';
import { verifyTicketFactor } from '../authn/ticket-factor.js';
import { AppError } from '../errors/app-error.js';
import { isFailedAuthentication } from '../limits/failed-authentication.js';
import { createBrowserSession } from '../oauth2/authorize/sessions.js';
import { verifySignIn } from '../oauth2/authorize/sign-in.js';
import { AUTH_EVENT } from '../tokens/auth-events.js';
import { ACR, type Acr } from '../tokens/claims.js';
import { requestOfEvent } from './event-request.js';
import { findSignInUserById, type SignInUser } from '../storage/authorize-lookups.js';
import { pageStrings, type PageLocale } from '../views/locale.js';
import { setSessionCookie } from './auth-pages.js';
import type { BrowserContext } from './authorize-render.js';
import { passkeyOfferDue, passkeyResponseOf, secondFactorOffer, verifyTicketPasskey, type SecondFactorOffer } from './passkey-factor.js';

/**
 * The browser sign-in in two steps, shared by the authorization endpoint and the `/device` page
 * : the password, then — for a user holding a confirmed
 * authenticator in a realm with multi-factor on — the second page asking for the code. Both steps
 * are protected like the password grant: the concurrent-login gate, wrong passwords and wrong
 * codes counted as failed authentications (spec Limits, Authentication 16). The console session
 * is created only once every factor is verified.
 */

/** How the calling flow renders its pages and what it checks before a session exists. */
export interface SignInPages {
    realm: { id: string; name: string };
    /** the pages' language (http/page-locale.ts): the messages this module shows are in it */
    locale: PageLocale;
    /** the client the user signs in to (the event log's entries name it); none on the device page before a decision */
    clientId?: string;
    /** the sign-in page (again, with a message) */
    signIn(error?: string, status?: number, username?: string): FastifyReply | Promise<FastifyReply>;
    /** the second-factor page offering what the user holds (a code, a passkey), with a message after a wrong one */
    secondFactor(offer: SecondFactorOffer, error?: string, status?: number): FastifyReply | Promise<FastifyReply>;
    /** the client's access policy (spec client field accessPolicyId): a reply ends the sign-in without a session */
    admit(user: SignInUser): Promise<FastifyReply | null>;
}

/**
 * Either the page the flow ends at for now, or the session the user just signed in to;
 * `offerPasskey`: the sign-in was a password's, and the realm offers to add a passkey (API.md §8 passkeyPrompt).
 */
export type SignInStep = { reply: FastifyReply } | { session: ConsoleSession; offerPasskey?: boolean };

type Form = Record<string, unknown>;
export const textOf = (form: Form, name: string): string => (typeof form[name] === 'string' ? form[name] : '');

/** Holds a login-gate slot for the account, or answers the page with the throttled message. */
async function gate(
    context: BrowserContext, request: FastifyRequest, reply: FastifyReply, pages: SignInPages, account: string, page: (error: string, status: number) => FastifyReply | Promise<FastifyReply>,
): Promise<FastifyReply | null> {
    try {
        context.deps.limits.enterLoginGate(request, account);
        return null;
    } catch (error) {
        if (!(error instanceof AppError) || error.code !== ErrorCode.LOGIN_ATTEMPT_THROTTLED) throw error;
        reply.header('retry-after', String(error.retryAfter ?? 1));
        return page(pageStrings(pages.locale).tooManyAttempts, 429);
    }
}

/** How a browser sign-in happened: the form's password, an upstream provider, or a passkey (WebAuthn, API.md §8). */
type SignInHow = { providerId?: string; passkey?: boolean };

/** The form's sign-ins and failures are entries of the event log (never the name typed: it may be an email) */
function signInEvent(context: BrowserContext, request: FastifyRequest, pages: SignInPages, name: string, userId: string | null, how: SignInHow = {}): void {
    const { providerId } = how;
    context.deps.events.record({
        name, scope: 'auth', refType: 'user', refId: userId, realmId: pages.realm.id, actorType: userId ? 'user' : null, actorId: userId,
        request: requestOfEvent(request),
        data: { method: providerId ? 'federated' : how.passkey ? 'passkey' : 'form', ...(providerId ? { providerId } : {}), ...(pages.clientId ? { clientId: pages.clientId } : {}) },
    });
}

/** The new browser session (its cookie set), after the client's access policy admitted the user. */
export async function signedIn(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, pages: SignInPages, user: SignInUser, acr: Acr, how: SignInHow = {}): Promise<SignInStep> {
    const refused = await pages.admit(user);
    if (refused) return { reply: refused };
    const { deps } = context;
    const created = await createBrowserSession(deps.db, deps.handle.dialect, {
        userId: user.id, realmId: pages.realm.id, ipAddress: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null,
        maxAge: deps.config.tokenRefreshMaxAge, cookie: true, acr,
    });
    setSessionCookie(reply, context.cookies, created.cookie!, created.maxAge);
    signInEvent(context, request, pages, AUTH_EVENT.signedIn, user.id, how);
    return { session: { id: created.id, userId: user.id, userName: user.name, realmId: pages.realm.id, realmName: pages.realm.name, authTime: created.authTime, acr } };
}

const clearPending = (context: BrowserContext, reply: FastifyReply) =>
    reply.clearCookie(context.cookies.pendingName, { httpOnly: true, sameSite: 'strict', secure: context.cookies.secure, path: '/' });

/**
 * The password step: an unknown user, a wrong password and an inactive user get the same page in
 * comparable time (oauth2/authorize/sign-in.ts). With a second factor due, the pending sign-in is
 * opened server-side (authn/pending-sign-in.ts), its secret set in an HttpOnly cookie, and the
 * second page shown. A realm requiring multi-factor refuses a user who has not enrolled: a
 * password alone never signs in there (as at the password grant).
 */
export async function passwordStep(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, pages: SignInPages, form: Form): Promise<SignInStep> {
    const { deps } = context;
    const S = pageStrings(pages.locale);
    const username = textOf(form, 'username');
    const password = textOf(form, 'password');
    const again = (error: string, status: number) => pages.signIn(error, status, username);
    if (username === '' || password === '' || username.length > 320 || password.length > 1024) return { reply: await again(S.invalidCredentials, 400) };
    const throttled = await gate(context, request, reply, pages, `user:${username}`, again);
    if (throttled) return { reply: throttled };
    const { user, failed, unavailable } = await verifySignIn(
        { db: deps.db, dialect: deps.handle.dialect, passwords: deps.passwords, secrets: deps.secrets, outbound: deps.outbound }, pages.realm.id, username, password,
    );
    // a directory that could not answer is said so, never reported as a wrong password
    if (unavailable) return { reply: await again(S.directoryUnavailable, 503) };
    if (!user) {
        if (failed) {
            signInEvent(context, request, pages, AUTH_EVENT.signInFailed, null);
            await deps.limits.failed(request);
        }
        return { reply: await again(S.invalidCredentials, 401) };
    }
    // the page's script says whether this browser has a platform authenticator (views/assets.ts PASSKEY_SCRIPT):
    // only then is the passkey offered after the password (without JavaScript, never)
    return firstFactorPassed(context, request, reply, pages, user, { username, passkeyCapable: textOf(form, 'passkey_capable') === '1' });
}

/**
 * After the first factor (a password, or a login through an identity provider): the
 * session, or the second-factor page when one is due in the realm. A realm requiring multi-factor
 * refuses a user who has not enrolled: a first factor alone never signs in there.
 */
export async function firstFactorPassed(
    context: BrowserContext, request: FastifyRequest, reply: FastifyReply, pages: SignInPages, user: SignInUser,
    how: { username?: string; providerId?: string; passkeyCapable?: boolean },
): Promise<SignInStep> {
    const { deps } = context;
    const S = pageStrings(pages.locale);
    const needed = await secondFactorNeeded(deps.db, pages.realm.id, user.id);
    if (needed === 'unverified') return { reply: await pages.signIn(S.emailNotVerified, 403, how.username) };
    if (needed === 'enrolment') return { reply: await pages.signIn(S.enrolmentRequired, 403, how.username) };
    if (needed === 'none') return withPasskeyOffer(context, await signedIn(context, request, reply, pages, user, ACR.PASSWORD, how), how.passkeyCapable === true);
    const secret = await startPendingSignIn(deps.db, deps.handle.dialect, { id: user.id, realmId: pages.realm.id });
    reply.setCookie(context.cookies.pendingName, secret, {
        httpOnly: true, sameSite: 'strict', secure: context.cookies.secure, path: '/', maxAge: PENDING_SIGN_IN_MAX_AGE,
    });
    return { reply: await pages.secondFactor(await secondFactorOffer(deps.db, pages.realm.id, user.id)) };
}

/**
 * A password sign-in's session, marked for the passkey offer when the browser can make one, the
 * realm makes the offer and the user holds no passkey yet. Only a password-only sign-in is offered
 * one: a user who just proved a second factor already holds one.
 */
async function withPasskeyOffer(context: BrowserContext, step: SignInStep, capable: boolean): Promise<SignInStep> {
    if (!capable || !('session' in step)) return step;
    return { ...step, offerPasskey: await passkeyOfferDue(context.deps.db, step.session.realmId, step.session.userId) };
}

/**
 * The second-factor step: the pending sign-in the cookie names (bound to this browser, of this
 * realm, unexpired), a current TOTP code accepted once or an unused recovery code
 * (authn/second-factor.ts), then the pending sign-in is used up and the session created. A wrong
 * or replayed code is a counted failed authentication — toward the address, the pending sign-in
 * and the user (authn/ticket-factor.ts) — and leaves the page open for another try until the
 * pending sign-in expires or is spent by wrong codes; a user locked by them is refused with 429.
 */
export async function secondFactorStep(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, pages: SignInPages, form: Form): Promise<SignInStep> {
    const { deps } = context;
    const S = pageStrings(pages.locale);
    const pending = await findPendingSignIn(deps.db, deps.handle.dialect, request.cookies[context.cookies.pendingName]);
    if (!pending || pending.realmId !== pages.realm.id) {
        clearPending(context, reply);
        return { reply: await pages.signIn(S.secondFactorExpired, 401) };
    }
    const offer = await secondFactorOffer(deps.db, pages.realm.id, pending.userId);
    const again = (error: string, status: number) => pages.secondFactor(offer, error, status);
    const throttled = await gate(context, request, reply, pages, `mfa:${pending.userId}`, again);
    if (throttled) return { reply: throttled };
    const recoveryCode = textOf(form, 'recovery_code').trim();
    const otp = textOf(form, 'otp').trim();
    const passkey = textOf(form, 'passkey_response');
    if ((recoveryCode === '' && otp === '' && passkey === '') || recoveryCode.length > 64 || otp.length > 16) return { reply: await again(S.invalidSecondFactor, 400) };
    const ticket = { id: pending.ticketId, userId: pending.userId, realmId: pending.realmId };
    // a passkey beside the code, the user's choice; both under the same limits (limits/second-factor-attempts.ts)
    const outcome = passkey !== '' && recoveryCode === '' && otp === '' ?
        await verifyTicketPasskey(context, ticket, offer.passkey ? passkeyResponseOf(passkey) : null, requestOfEvent(request)) :
        await verifyTicketFactor(
            { dialect: deps.handle.dialect, secrets: deps.secrets, attempts: deps.limits.secondFactor, events: deps.events }, deps.db,
            ticket, recoveryCode !== '' ? { recoveryCode } : { otp }, requestOfEvent(request),
        );
    if (!outcome.ok) {
        if (isFailedAuthentication(outcome.error)) await deps.limits.failed(request);
        if (outcome.reason === 'locked') {
            reply.header('retry-after', String(outcome.error.retryAfter ?? 1));
            return { reply: await again(S.secondFactorLocked, 429) };
        }
        if (outcome.ticketSpent) {
            clearPending(context, reply);
            return { reply: await pages.signIn(S.secondFactorSpent, 401) };
        }
        return { reply: await again(passkey !== '' ? S.passkeyFailed : S.invalidSecondFactor, 401) };
    }
    const user = await findSignInUserById(deps.db, pages.realm.id, pending.userId);
    // single use: of two submissions of one pending sign-in only one goes on
    if (!(await pending.consume()) || !user?.active) {
        clearPending(context, reply);
        return { reply: await pages.signIn(S.secondFactorExpired, 401) };
    }
    clearPending(context, reply);
    return signedIn(context, request, reply, pages, user, ACR.SECOND_FACTOR);
}
