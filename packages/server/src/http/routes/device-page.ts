import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ConsoleSession } from '../../authn/console-session.js';
import { AppError } from '../../errors/app-error.js';
import { normalizeUserCode } from '../../oauth2/device/codes.js';
import { scopeNames } from '../../oauth2/grants/scope.js';
import { findPageRealm } from '../../storage/authorize-lookups.js';
import type { PendingDeviceCode } from '../../storage/device-codes.js';
import type { FederatedLogin, PageRealm } from '../../views/contract.js';
import { pageStrings } from '../../views/locale.js';
import { csrfToken, formIsSameSite, sendErrorPage, sendPage } from '../auth-pages.js';
import { browserContext, forgotPasswordLink, pageRealm, providerChoice, secondFactorChoice, sendCsrfRefusal, sendErrorAsPage, sessionOf, type BrowserContext } from '../authorize-render.js';
import { passwordStep, secondFactorStep, type SignInPages } from '../browser-sign-in.js';
import { contract } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import { pageLocale } from '../page-locale.js';

/*
 * The device verification page (RFC 8628 §3.3; spec `GET /device`, outside /console): the verification_uri and verification_uri_complete of `POST /device_authorization`.
 * The user code comes first — typed, or from `?user_code=` — because it names the realm the user
 * signs in to (user codes are unique across realms); then the sign-in of the authorization
 * endpoint (password, second factor) unless the browser already holds a session of that realm;
 * then the client and scopes with Approve and Deny, through the transport-free verification the
 * API form uses (oauth2/device/verification.ts: throttled per address and session, the client's
 * access policy at approval). Every form carries the CSRF token; no page needs JavaScript.
 */

const FORM = ['application/x-www-form-urlencoded'] as const;
const PAGE = Type.String({ description: 'An HTML page (code entry, sign-in, second factor, decision, result or error).' });
const USER_CODE = Type.String({ maxLength: 64, description: 'The user code the device shows (case-insensitive, the dash optional).' });

type Form = Record<string, unknown>;
const formOf = (request: FastifyRequest): Form => (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Form;
const textOf = (form: Form, name: string): string => (typeof form[name] === 'string' ? form[name].trim().slice(0, 64) : '');

/** The user code as the device shows it (XXXX-XXXX), or as typed when it cannot be one. */
function displayed(typed: string): string {
    const code = normalizeUserCode(typed);
    return code === null ? typed : `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** The realm a session belongs to, as a page shows it (its display name when set). */
async function realmOfSession(context: BrowserContext, session: ConsoleSession): Promise<PageRealm> {
    const realm = await findPageRealm(context.deps.db, session.realmId);
    return realm ? pageRealm(realm) : { name: session.realmName, displayName: null };
}

const clientOf = (found: PendingDeviceCode) => ({ name: found.client.name, displayName: found.client.displayName });

function send(context: BrowserContext, reply: FastifyReply, html: string, status = 200, formTargets: readonly string[] = []): FastifyReply {
    return sendPage(reply, html, { status, publicOrigin: context.cookies.origin, formTargets });
}

/** The code entry page, with a message after a wrong code or a throttled one. */
async function codePage(
    context: BrowserContext, request: FastifyRequest, reply: FastifyReply, page: { session?: ConsoleSession | null; userCode?: string; error?: string; status?: number } = {},
): Promise<FastifyReply> {
    const csrf = csrfToken(request, reply, context.cookies);
    const realm = page.session ? await realmOfSession(context, page.session) : null;
    const html = context.deps.views.renderDeviceCode({
        locale: pageLocale(request), realm, form: { action: `${context.base}/device`, fields: { csrf } },
        ...(page.userCode !== undefined ? { userCode: page.userCode } : {}), ...(page.error !== undefined ? { error: page.error } : {}),
    });
    return send(context, reply, html, page.status);
}

/**
 * A refusal of the verification as a page: an unknown, expired or decided code (one answer for
 * all, the realm of the code included) and the 429 device_verification_throttled with its wait.
 */
function refusalPage(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, error: unknown, typed: string, session: ConsoleSession | null): Promise<FastifyReply> | FastifyReply {
    if (!(error instanceof AppError)) throw error;
    if (error.code === ErrorCode.ENTITY_NOT_FOUND) return codePage(context, request, reply, { session, userCode: typed, error: pageStrings(pageLocale(request)).deviceCodeUnknown, status: 400 });
    if (error.code === ErrorCode.DEVICE_VERIFICATION_THROTTLED) {
        const seconds = error.retryAfter ?? 60;
        reply.header('retry-after', String(seconds));
        return codePage(context, request, reply, { session, userCode: typed, error: pageStrings(pageLocale(request)).deviceThrottled(seconds), status: 429 });
    }
    if (error.code === ErrorCode.ACCESS_DENIED) {
        return sendErrorPage(reply, context.deps.views, { status: 403, realm: null, error: error.code, message: error.message, publicOrigin: context.cookies.origin, locale: pageLocale(request) });
    }
    throw error;
}

/** The sign-in pages of the device page: the code's realm and client, the code carried in a hidden field. */
export function devicePages(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, found: PendingDeviceCode, typed: string): SignInPages {
    const realm = pageRealm(found.realm);
    const client = clientOf(found);
    const fields = () => ({ user_code: typed, csrf: csrfToken(request, reply, context.cookies) });
    // the device flow carries no ui_locales to this browser: its Accept-Language decides
    const locale = pageLocale(request);
    return {
        realm: found.realm,
        locale,
        signIn: async (error, status, username) => {
            const form = fields();
            // the device page signs in through the realm's providers too
            const choice = await providerChoice(context, found.realm.id, `${context.base}/device/federated`, form);
            return send(context, reply, context.deps.views.renderSignIn({
                locale, realm, client, form: { action: `${context.base}/device/sign-in`, fields: form }, ...choice.view, ...forgotPasswordLink(context, realm),
                ...(username ? { username } : {}), ...(error ? { error } : {}),
            }), status, choice.formTargets);
        },
        secondFactor: (offer, error, status) => {
            const form = { action: `${context.base}/device/second-factor`, fields: fields() };
            return send(context, reply, context.deps.views.renderSecondFactor({
                locale, realm, client, form, ...secondFactorChoice(context, offer, form), ...(error ? { error } : {}),
            }), status);
        },
        // the client's access policy is checked when the user approves (oauth2/device/verification.ts)
        admit: () => Promise.resolve(null),
    };
}

/** The decision page: the client and the scopes, Approve and Deny, for the session shown it. */
export function confirmPage(
    context: BrowserContext, request: FastifyRequest, reply: FastifyReply, found: PendingDeviceCode, typed: string, session: ConsoleSession, federatedLogin?: FederatedLogin,
): FastifyReply {
    const html = context.deps.views.renderDeviceConfirm({
        locale: pageLocale(request), realm: pageRealm(found.realm), client: clientOf(found), user: session.userName, userCode: displayed(typed), scopes: scopeNames(found.scope),
        form: { action: `${context.base}/device/decision`, fields: { user_code: typed, session_id: session.id, csrf: csrfToken(request, reply, context.cookies) } },
        ...(federatedLogin ? { federatedLogin } : {}),
    });
    return send(context, reply, html);
}

/**
 * The page a user code leads to: the decision when the browser holds a session of the code's
 * realm, else that realm's sign-in (a session of another realm is never used for it).
 */
async function showCode(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, typed: string): Promise<FastifyReply> {
    const session = await sessionOf(context, request);
    let found: PendingDeviceCode;
    try {
        found = await context.deps.deviceVerification.locate({ address: request.ip, sessionId: session?.id ?? null }, typed);
    } catch (error) {
        return refusalPage(context, request, reply, error, typed, session);
    }
    if (session && session.realmId === found.realm.id) return confirmPage(context, request, reply, found, typed, session);
    return devicePages(context, request, reply, found, typed).signIn();
}

/** The CSRF check of a device form, then the pending request its code names (located again: forms are input). */
export async function checkedForm(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<{ form: Form; typed: string; found: PendingDeviceCode } | FastifyReply> {
    const form = formOf(request);
    // RFC 9700 §4.7 alike (login CSRF): the form must come from our own page
    if (!formIsSameSite(request, context.cookies, form.csrf)) return sendCsrfRefusal(context, request, reply, null);
    const typed = textOf(form, 'user_code');
    try {
        return { form, typed, found: await context.deps.deviceVerification.locate({ address: request.ip, sessionId: null }, typed) };
    } catch (error) {
        return refusalPage(context, request, reply, error, typed, await sessionOf(context, request));
    }
}

/** A sign-in form of the device page (the password, or the second factor), then the decision page for the new session. */
async function signInForm(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, step: typeof passwordStep): Promise<FastifyReply> {
    const checked = await checkedForm(context, request, reply);
    if (!('found' in checked)) return checked;
    const { form, typed, found } = checked;
    const result = await step(context, request, reply, devicePages(context, request, reply, found, typed), form);
    if ('reply' in result) return result.reply;
    return confirmPage(context, request, reply, found, typed, result.session);
}

/** `POST /device/decision`: Approve or Deny for the signed-in user (RFC 8628 §3.3), then the result page. */
async function decision(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const form = formOf(request);
    if (!formIsSameSite(request, context.cookies, form.csrf)) return sendCsrfRefusal(context, request, reply, null);
    const typed = textOf(form, 'user_code');
    const session = await sessionOf(context, request);
    // the answer counts for the session the page was shown to; otherwise the code is shown again
    if (!session || session.id !== form.session_id) return showCode(context, request, reply, typed);
    const choice = form.decision === 'approve' || form.decision === 'deny' ? form.decision : null;
    if (choice === null) return codePage(context, request, reply, { session, userCode: typed, error: pageStrings(pageLocale(request)).deviceChooseDecision, status: 400 });
    const verifier = { userId: session.userId, realmId: session.realmId, realmName: session.realmName, sessionId: session.id, address: request.ip };
    let decided;
    try {
        decided = await context.deps.deviceVerification[choice](verifier, typed);
    } catch (error) {
        return refusalPage(context, request, reply, error, typed, session);
    }
    const html = context.deps.views.renderDeviceDone({
        locale: pageLocale(request), realm: await realmOfSession(context, session), client: { name: decided.client.name, displayName: decided.client.displayName }, approved: choice === 'approve',
    });
    return send(context, reply, html);
}

export function registerDevicePageRoutes(app: FastifyInstance, deps: AppDeps): void {
    const context = browserContext(deps);
    void app.register(async (scope) => {
        scope.setErrorHandler((error, request, reply) => sendErrorAsPage(context, error, request, reply));
        scope.get('/device', contract({
            auth: 'none', tags: ['auth pages'], summary: 'The device verification page (RFC 8628 §3.3)',
            description: 'The verification_uri of POST /device_authorization; with `user_code` (verification_uri_complete) the code is taken from the query.',
            querystring: Type.Object({ user_code: Type.Optional(USER_CODE) }),
            response: { 200: PAGE }, errors: [429],
        }), async (request, reply) => {
            const typed = (request.query as { user_code?: string }).user_code?.trim();
            if (typed) return showCode(context, request, reply, typed);
            return codePage(context, request, reply, { session: await sessionOf(context, request) });
        });
        scope.post('/device', contract({
            auth: 'none', tags: ['auth pages'], summary: 'The code form of the device verification page',
            description: '`user_code` and the CSRF token: the sign-in of the code\'s realm, or the decision page with a session of it.',
            consumes: FORM, body: Type.Unknown({ description: 'The code form.' }), response: { 200: PAGE }, errors: [403, 429],
        }), (request, reply) => {
            const form = formOf(request);
            if (!formIsSameSite(request, context.cookies, form.csrf)) return sendCsrfRefusal(context, request, reply, null);
            return showCode(context, request, reply, textOf(form, 'user_code'));
        });
        scope.post('/device/sign-in', contract({
            auth: 'none', tags: ['auth pages'], summary: 'The sign-in form of the device verification page',
            description: '`username`, `password`, `user_code` and the CSRF token; protected like the sign-in of the authorization endpoint.',
            consumes: FORM, body: Type.Unknown({ description: 'The sign-in form.' }), response: { 200: PAGE }, errors: [401, 403, 429],
        }), (request, reply) => signInForm(context, request, reply, passwordStep));
        scope.post('/device/second-factor', contract({
            auth: 'none', tags: ['auth pages'], summary: 'The second-factor form of the device verification page',
            description: '`otp` or `recovery_code`, `user_code` and the CSRF token; the pending sign-in is the HttpOnly cookie the sign-in form set.',
            consumes: FORM, body: Type.Unknown({ description: 'The second-factor form.' }), response: { 200: PAGE }, errors: [401, 403, 429],
        }), (request, reply) => signInForm(context, request, reply, secondFactorStep));
        scope.post('/device/decision', contract({
            auth: 'none', tags: ['auth pages'], summary: 'The decision form of the device verification page',
            description: '`decision` (`approve` or `deny`), `user_code`, the session the page was shown to and the CSRF token; the console session is the user.',
            consumes: FORM, body: Type.Unknown({ description: 'The decision form.' }), response: { 200: PAGE }, errors: [403, 429],
        }), (request, reply) => decision(context, request, reply));
    });
}
