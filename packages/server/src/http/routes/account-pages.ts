import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { EMAIL_PATTERN, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domains/users/definition.js';
import { AppError } from '../../errors/app-error.js';
import { findAccountRealm } from '../../storage/account-codes.js';
import { renderAccountDone, renderActivation, renderPasswordForgot, renderPasswordReset } from '../../views/account-pages.js';
import type { PageRealm } from '../../views/contract.js';
import { ACCOUNT_STRINGS } from '../../views/strings.js';
import { csrfToken, formIsSameSite, sendErrorPage, sendPage } from '../auth-pages.js';
import { browserContext, pageRealm, sendCsrfRefusal, sendFailurePage, type BrowserContext } from '../authorize-render.js';
import { contract } from '../contracts/route-contract.js';
import { idParams } from '../contracts/resource-schemas.js';
import type { AppDeps } from '../deps.js';

/*
 * The pages the mails link to (spec States "activation round-trip"): GET shows a form (with the CSRF field of the
 * other auth pages, http/auth-pages.ts), POST does what the API route does. Same headers as the
 * sign-in pages (sendPage). Under /realms/:realmId only: the mailed links always name the realm.
 */

const PAGE = Type.String({ description: 'An HTML page: the form, the result, or an error.' });
const PREFIX = '/realms/:realmId';
type Kind = 'activation' | 'reset';
const PATHS: Record<Kind, string> = { activation: 'activate', reset: 'reset-password' };

const field = (source: unknown, name: string): string | undefined => {
    const value = (source ?? {}) as Record<string, unknown>;
    return typeof value[name] === 'string' ? value[name] : undefined;
};

function invalidLink(context: BrowserContext, reply: FastifyReply, realm: PageRealm | null): FastifyReply {
    return sendErrorPage(reply, context.deps.views, { status: 400, realm, error: 'invalid_request', message: ACCOUNT_STRINGS.linkInvalid, publicOrigin: context.cookies.origin });
}

function form(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, kind: Kind, realm: PageRealm, code: string, error?: string, status = 200): FastifyReply {
    const view = {
        realm,
        form: { action: `${context.base}/realms/${encodeURIComponent(realm.name)}/${PATHS[kind]}`, fields: { code, csrf: csrfToken(request, reply, context.cookies) } },
        ...(error ? { error } : {}),
    };
    return sendPage(reply, kind === 'activation' ? renderActivation(view) : renderPasswordReset(view), { status, publicOrigin: context.cookies.origin });
}

/** The new password of the reset form: the two entries agree and fit the user field's bounds. */
function passwordProblem(body: unknown): string | null {
    const password = field(body, 'password');
    if (password === undefined || password !== field(body, 'passwordRepeat')) return ACCOUNT_STRINGS.passwordsDiffer;
    if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) return ACCOUNT_STRINGS.passwordLength(PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH);
    return null;
}

const EMAIL = new RegExp(EMAIL_PATTERN);

/** The forgot-password form: the username or address, and the CSRF field of the other auth pages. */
function forgotForm(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, realm: PageRealm): FastifyReply {
    const view = { realm, form: { action: `${context.base}/realms/${encodeURIComponent(realm.name)}/forgot-password`, fields: { csrf: csrfToken(request, reply, context.cookies) } } };
    return sendPage(reply, renderPasswordForgot(view), { publicOrigin: context.cookies.origin });
}

/** Without a mail relay there is nothing to ask for (the API answers 503 mail_unavailable): a page saying so. */
function mailUnavailable(context: BrowserContext, reply: FastifyReply, realm: PageRealm | null): FastifyReply {
    return sendErrorPage(reply, context.deps.views, { status: 503, realm, error: 'mail_unavailable', message: ACCOUNT_STRINGS.mailUnavailable, publicOrigin: context.cookies.origin });
}

/**
 * The "Forgot password?" page the sign-in page links to when mail is configured: the username or
 * address, then the same answer whether or not an account matches (spec Endpoints), through the
 * account service as `POST /password-forgot` (its mail throttle included).
 */
function registerForgotPage(scope: FastifyInstance, context: BrowserContext, realmOf: (request: FastifyRequest) => Promise<PageRealm | null>): void {
    const path = `${PREFIX}/forgot-password`;
    scope.get(path, contract({
        auth: 'none', tags: ['account'], summary: 'The page asking for a password-reset link by mail',
        description: 'Linked from the sign-in page ("Forgot password?") when mail is configured; without SMTP_URL a page answers 503.',
        params: idParams(PREFIX, []), response: { 200: PAGE }, errors: [503],
    }), async (request, reply) => {
        const realm = await realmOf(request);
        if (!realm) return invalidLink(context, reply, realm);
        if (!context.deps.mailer) return mailUnavailable(context, reply, realm);
        return forgotForm(context, request, reply, realm);
    });
    scope.post(path, contract({
        auth: 'none', tags: ['account'], summary: 'The form of the forgot-password page',
        params: idParams(PREFIX, []), consumes: ['application/x-www-form-urlencoded'],
        body: Type.Unknown({ description: '`username` (a user name or an address), `csrf`.' }),
        response: { 200: PAGE }, errors: [403, 503],
    }), async (request, reply) => {
        const realm = await realmOf(request);
        if (!realm) return invalidLink(context, reply, realm);
        if (!formIsSameSite(request, context.cookies, field(request.body, 'csrf'))) return sendCsrfRefusal(context, reply, realm);
        if (!context.deps.mailer) return mailUnavailable(context, reply, realm);
        const typed = (field(request.body, 'username') ?? '').trim();
        if (typed === '' || typed.length > 255) return forgotForm(context, request, reply, realm);
        // the one field of the sign-in page: an address when it is shaped like one, else a name
        await context.deps.account.forgotPassword(realm.name, EMAIL.test(typed) ? { email: typed } : { name: typed });
        return sendPage(reply, renderAccountDone({ realm, kind: 'requested' }), { publicOrigin: context.cookies.origin });
    });
}

export function registerAccountPages(app: FastifyInstance, deps: AppDeps): void {
    const context = browserContext(deps);
    const realmOf = async (request: FastifyRequest): Promise<PageRealm | null> => {
        const realm = await findAccountRealm(deps.db, (request.params as { realmId: string }).realmId);
        return realm ? pageRealm(realm) : null;
    };
    void app.register(async (scope) => {
        scope.setErrorHandler(sendFailurePage(context, 'account page'));
        registerForgotPage(scope, context, realmOf);
        for (const kind of ['activation', 'reset'] as const) {
            const path = `${PREFIX}/${PATHS[kind]}`;
            const what = kind === 'activation' ? 'activation' : 'password-reset';
            scope.get(path, contract({
                auth: 'none', tags: ['account'], summary: `The page the ${what} mail links to`,
                params: idParams(PREFIX, []), querystring: Type.Object({ code: Type.Optional(Type.String({ maxLength: 128 })) }),
                response: { 200: PAGE },
            }), async (request, reply) => {
                const realm = await realmOf(request);
                const code = field(request.query, 'code');
                if (!realm || code === undefined || !await deps.account.codeIsLive(realm.name, kind, code)) return invalidLink(context, reply, realm);
                return form(context, request, reply, kind, realm, code);
            });
            scope.post(path, contract({
                auth: 'none', tags: ['account'], summary: `The form of the ${what} page`,
                params: idParams(PREFIX, []), consumes: ['application/x-www-form-urlencoded'],
                body: Type.Unknown({ description: kind === 'activation' ? '`code`, `csrf`.' : '`code`, `csrf`, `password`, `passwordRepeat`.' }),
                response: { 200: PAGE }, errors: [403],
            }), async (request, reply) => {
                const realm = await realmOf(request);
                const code = field(request.body, 'code');
                if (!realm || code === undefined) return invalidLink(context, reply, realm);
                if (!formIsSameSite(request, context.cookies, field(request.body, 'csrf'))) return sendCsrfRefusal(context, reply, realm);
                try {
                    if (kind === 'activation') {
                        await deps.account.activate(realm.name, code);
                    } else {
                        const problem = passwordProblem(request.body);
                        if (problem) return form(context, request, reply, kind, realm, code, problem, 400);
                        await deps.account.resetPassword(realm.name, code, field(request.body, 'password')!);
                    }
                } catch (error) {
                    // the code was spent or expired between the page and the form
                    if (error instanceof AppError && error.statusCode === 400) return invalidLink(context, reply, realm);
                    throw error;
                }
                return sendPage(reply, renderAccountDone({ realm, kind: kind === 'activation' ? 'activated' : 'reset' }), { publicOrigin: context.cookies.origin });
            });
        }
    });
}
