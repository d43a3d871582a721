import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { accessAllows, decide } from '../../oauth2/authorize/flow.js';
import { targetOf, type AuthorizationRequest } from '../../oauth2/authorize/request.js';
import { authorizationError } from '../../oauth2/authorize/response.js';
import { contract } from '../contracts/route-contract.js';
import { formIsSameSite } from '../auth-pages.js';
import { deliver, pageRealm, sendCsrfRefusal, sendInvalid, sendOutcome, sendSecondFactor, sessionOf, type BrowserContext } from '../authorize-render.js';
import { passwordStep, secondFactorStep, type SignInPages } from '../browser-sign-in.js';
import { sendPasskeyPrompt } from '../passkey-sign-in.js';
import { pageLocale } from '../page-locale.js';

const FORM = ['application/x-www-form-urlencoded'] as const;
const PAGE = Type.String({ description: 'An HTML page (sign-in again, consent, form_post or error).' });
const REDIRECT = Type.Null({ description: 'See Other: the authorization response at the redirect URI.' });

type Form = Record<string, unknown>;

/** The carried authorization request, re-validated (a form's hidden fields are input like any other), and the CSRF check. */
export async function validatedForm(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<{ form: Form; authorization: AuthorizationRequest } | FastifyReply> {
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Form;
    const validation = await context.deps.authorizationRequests.validate(form);
    if (!validation.ok) return sendInvalid(context, request, reply, validation);
    // RFC 9700 §4.7 (CSRF): the form must come from our own page
    if (!formIsSameSite(request, context.cookies, form.csrf)) return sendCsrfRefusal(context, request, reply, pageRealm(validation.request.client.realm), validation.request.uiLocales);
    return { form, authorization: validation.request };
}

/**
 * The sign-in pages of an authorization request (sign-in and consent; the client's access policy; the TOTP second page, RFC 6238): the
 * sign-in form again, the second-factor form (both carrying the request in hidden fields), and the
 * client's access policy, whose refusal answers access_denied at the redirect URI.
 */
export function authorizePages(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest): SignInPages {
    const { deps } = context;
    return {
        realm: authorization.client.realm,
        locale: pageLocale(request, authorization.uiLocales),
        clientId: authorization.client.id,
        signIn: (error, status, username) => sendOutcome(context, request, reply, authorization, { kind: 'sign-in' }, { username, error, status }),
        secondFactor: (offer, error, status) => sendSecondFactor(context, request, reply, authorization, { error, status, offer }),
        admit: async (user) => (await accessAllows(deps.db, authorization, { id: user.id, realmName: authorization.client.realm.name }) ? null :
            deliver(context, request, reply, authorizationError(targetOf(authorization), ErrorCode.ACCESS_DENIED, "The client's access policy does not admit this user."), authorization.uiLocales)),
    };
}

/**
 * `POST /authorize/sign-in` (throttled like the password grant; the client's access policy applies) and
 * `POST /authorize/second-factor` (the TOTP page, RFC 6238): one step of the browser sign-in
 * (http/browser-sign-in.ts) — the password, then the
 * second page when a second factor is due — and, once the user is signed in, the flow goes on in
 * the new browser session (consent, or the code).
 */
export async function signInForm(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, step: typeof passwordStep): Promise<FastifyReply> {
    const checked = await validatedForm(context, request, reply);
    if (!('authorization' in checked)) return checked;
    const { form, authorization } = checked;
    const result = await step(context, request, reply, authorizePages(context, request, reply, authorization), form);
    if ('reply' in result) return result.reply;
    // API.md §8 passkeyPrompt: "Add a passkey to sign in faster" before the flow goes on (a console module without the page skips it)
    if (result.offerPasskey && context.deps.views.renderPasskeyPrompt) return sendPasskeyPrompt(context, request, reply, authorization, result.session);
    const outcome = await decide({ db: context.deps.db, dialect: context.deps.handle.dialect }, authorization, result.session, { fresh: true });
    return sendOutcome(context, request, reply, authorization, outcome);
}

/**
 * `POST /authorize/consent` (consent remembered per user and client): Allow records the scopes for the user and client and
 * answers with a code; Deny answers access_denied (RFC 6749 §4.1.2.1). The answer counts for the
 * session the page was shown to; if the cookie names another one now, the flow starts over.
 */
async function consent(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const checked = await validatedForm(context, request, reply);
    if (!('authorization' in checked)) return checked;
    const { form, authorization } = checked;
    const decision = form.decision === 'allow' || form.decision === 'deny' ? form.decision : null;
    if (decision === null) {
        return sendInvalid(context, request, reply, { ok: false, page: { error: ErrorCode.INVALID_REQUEST, message: 'decision must be allow or deny.', realm: authorization.client.realm } }, authorization.uiLocales);
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
    }), (request, reply) => signInForm(context, request, reply, passwordStep));
    scope.post('/authorize/second-factor', contract({
        auth: 'none', tags: ['oauth2'], summary: 'The second-factor form of the authorization endpoint',
        description: '`otp` (the 6-digit code of an authenticator app, RFC 6238) or `recovery_code`, the CSRF token and the authorization request '
            + 'carried in hidden fields; the pending sign-in is the HttpOnly cookie the sign-in form set. A wrong or replayed code counts as a failed authentication.',
        consumes: FORM, body: Type.Unknown({ description: 'The second-factor form.' }),
        response: { 200: PAGE, 303: REDIRECT }, errors: [401, 403],
    }), (request, reply) => signInForm(context, request, reply, secondFactorStep));
    scope.post('/authorize/consent', contract({
        auth: 'none', tags: ['oauth2'], summary: 'The consent form of the authorization endpoint',
        description: '`decision` (`allow` or `deny`), the CSRF token and the authorization request carried in hidden fields.',
        consumes: FORM, body: Type.Unknown({ description: 'The consent form.' }),
        response: { 200: PAGE, 303: REDIRECT }, errors: [403],
    }), (request, reply) => consent(context, request, reply));
}
