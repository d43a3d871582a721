import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ConsoleSession } from '../../authn/console-session.js';
import { AppError } from '../../errors/app-error.js';
import { accessAllows, decide } from '../../oauth2/authorize/flow.js';
import { targetOf, validateAuthorizationRequest, type AuthorizationRequest } from '../../oauth2/authorize/request.js';
import { authorizationError } from '../../oauth2/authorize/response.js';
import { createBrowserSession } from '../../oauth2/authorize/sessions.js';
import { verifySignIn } from '../../oauth2/authorize/sign-in.js';
import { secondFactorNeeded } from '../../authn/second-factor.js';
import { STRINGS } from '../../views/strings.js';
import { AUTH_EVENT } from '../../tokens/auth-events.js';
import { requestOfEvent } from '../event-request.js';
import { contract } from '../contracts/route-contract.js';
import { formIsSameSite, setSessionCookie } from '../auth-pages.js';
import { deliver, pageRealm, sendCsrfRefusal, sendInvalid, sendOutcome, sessionOf, type BrowserContext } from '../authorize-render.js';

const FORM = ['application/x-www-form-urlencoded'] as const;
const PAGE = Type.String({ description: 'An HTML page (sign-in again, consent, form_post or error).' });
const REDIRECT = Type.Null({ description: 'See Other: the authorization response at the redirect URI.' });

type Form = Record<string, unknown>;
const textOf = (form: Form, name: string): string => (typeof form[name] === 'string' ? form[name] : '');

/** The carried authorization request, re-validated (a form's hidden fields are input like any other), and the CSRF check. */
async function validatedForm(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<{ form: Form; authorization: AuthorizationRequest } | FastifyReply> {
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Form;
    const validation = await validateAuthorizationRequest(context.deps.db, context.deps.config.publicUrl, form);
    if (!validation.ok) return sendInvalid(context, reply, validation);
    // RFC 9700 §4.7 (CSRF): the form must come from our own page
    if (!formIsSameSite(request, context.cookies, form.csrf)) return sendCsrfRefusal(context, reply, pageRealm(validation.request.client.realm));
    return { form, authorization: validation.request };
}

/**
 * `POST /authorize/sign-in` (issue 13 items 3, 12, 13): protected like the password grant — the
 * concurrent-login gate holds a slot for the account, a wrong password counts toward the address's
 * failed authentications (spec Limits, Authentication rule 16), and an unknown user, a wrong
 * password and an inactive user get the same page. A sign-in creates a new browser session.
 */
async function signIn(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const checked = await validatedForm(context, request, reply);
    if (!('authorization' in checked)) return checked;
    const { form, authorization } = checked;
    const { deps } = context;
    const username = textOf(form, 'username');
    const password = textOf(form, 'password');
    const again = (error: string, status: number) => sendOutcome(context, request, reply, authorization, { kind: 'sign-in' }, { username, error, status });
    if (username === '' || password === '' || username.length > 320 || password.length > 1024) return again(STRINGS.invalidCredentials, 400);
    try {
        deps.limits.enterLoginGate(request, `user:${username}`);
    } catch (error) {
        if (!(error instanceof AppError) || error.code !== ErrorCode.LOGIN_ATTEMPT_THROTTLED) throw error;
        reply.header('retry-after', String(error.retryAfter ?? 1));
        return again(STRINGS.tooManyAttempts, 429);
    }
    const realm = authorization.client.realm;
    const { user, failed } = await verifySignIn(deps.db, deps.passwords, realm.id, username, password);
    // issue 15: the form's sign-ins and failures are entries of the event log (never the name typed: it may be an email)
    const signInEvent = (name: string, userId: string | null) => deps.events.record({
        name, scope: 'auth', refType: 'user', refId: userId, realmId: realm.id, actorType: userId ? 'user' : null, actorId: userId,
        request: requestOfEvent(request), data: { method: 'form', clientId: authorization.client.id },
    });
    if (!user) {
        if (failed) {
            signInEvent(AUTH_EVENT.signInFailed, null);
            await deps.limits.failed(request);
        }
        return again(STRINGS.invalidCredentials, 401);
    }
    // fail closed until the browser asks for the second factor (issue 14): a password alone must
    // not sign in an account the password grant would hold at mfa_required
    if (await secondFactorNeeded(deps.db, realm.id, user.id) !== 'none') return again(STRINGS.secondFactorUnavailable, 403);
    if (!await accessAllows(deps.db, authorization, { id: user.id, realmName: realm.name })) {
        return deliver(context, reply, authorizationError(targetOf(authorization), ErrorCode.ACCESS_DENIED, "The client's access policy does not admit this user."));
    }
    const created = await createBrowserSession(deps.db, deps.handle.dialect, {
        userId: user.id, realmId: realm.id, ipAddress: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null,
        maxAge: deps.config.tokenRefreshMaxAge, cookie: true,
    });
    setSessionCookie(reply, context.cookies, created.cookie!, created.maxAge);
    signInEvent(AUTH_EVENT.signedIn, user.id);
    const session: ConsoleSession = { id: created.id, userId: user.id, userName: user.name, realmId: realm.id, realmName: realm.name, authTime: created.authTime };
    const outcome = await decide({ db: deps.db, dialect: deps.handle.dialect }, authorization, session, { fresh: true });
    return sendOutcome(context, request, reply, authorization, outcome);
}

/**
 * `POST /authorize/consent` (issue 13 item 3): Allow records the scopes for the user and client and
 * answers with a code; Deny answers access_denied (RFC 6749 §4.1.2.1). The answer counts for the
 * session the page was shown to; if the cookie names another one now, the flow starts over.
 */
async function consent(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const checked = await validatedForm(context, request, reply);
    if (!('authorization' in checked)) return checked;
    const { form, authorization } = checked;
    const decision = form.decision === 'allow' || form.decision === 'deny' ? form.decision : null;
    if (decision === null) {
        return sendInvalid(context, reply, { ok: false, page: { error: ErrorCode.INVALID_REQUEST, message: 'decision must be allow or deny.', realm: authorization.client.realm } });
    }
    const session = await sessionOf(context, request);
    const answered = session !== null && session.id === form.session_id;
    const outcome = await decide({ db: context.deps.db, dialect: context.deps.handle.dialect }, authorization, session, answered ? { fresh: true, decision } : { fresh: false });
    return sendOutcome(context, request, reply, authorization, outcome);
}

export function registerAuthorizeFormRoutes(scope: FastifyInstance, context: BrowserContext): void {
    scope.post('/authorize/sign-in', contract({
        auth: 'none', tags: ['oauth2'], summary: 'The sign-in form of the authorization endpoint',
        description: '`username` (a name or an email), `password`, the CSRF token and the authorization request carried in hidden fields.',
        consumes: FORM, body: Type.Unknown({ description: 'The sign-in form.' }),
        response: { 200: PAGE, 303: REDIRECT }, errors: [401, 403],
    }), (request, reply) => signIn(context, request, reply));
    scope.post('/authorize/consent', contract({
        auth: 'none', tags: ['oauth2'], summary: 'The consent form of the authorization endpoint',
        description: '`decision` (`allow` or `deny`), the CSRF token and the authorization request carried in hidden fields.',
        consumes: FORM, body: Type.Unknown({ description: 'The consent form.' }),
        response: { 200: PAGE, 303: REDIRECT }, errors: [403],
    }), (request, reply) => consent(context, request, reply));
}
