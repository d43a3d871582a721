import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { cookiePolicy, verifyConsoleSession, type ConsoleSession, type CookiePolicy } from '../authn/console-session.js';
import type { Outcome } from '../oauth2/authorize/flow.js';
import type { AuthorizationRequest, Validation } from '../oauth2/authorize/request.js';
import { responseUrl, type AuthorizationResponse } from '../oauth2/authorize/response.js';
import type { FederatedLogin, PageForm, PageProvider, PageRealm, SecondFactorView, SignInView } from '../views/contract.js';
import { findRealmPasskeySettings } from '../storage/passkeys.js';
import { listEnabledProviders } from '../storage/identity-providers.js';
import { csrfToken, formTarget, sendErrorPage, sendPage } from './auth-pages.js';
import type { AppDeps } from './deps.js';
import { renderError } from './error-handler.js';
import { pageLocale } from './page-locale.js';
import { pageStrings } from '../views/locale.js';

/** What the browser-facing authorization routes share. */
export interface BrowserContext {
    deps: AppDeps;
    cookies: CookiePolicy;
    /** PUBLIC_URL without a trailing slash: the forms post to absolute URLs under it */
    base: string;
}

export function browserContext(deps: AppDeps): BrowserContext {
    return { deps, cookies: cookiePolicy(deps.config.publicUrl), base: deps.config.publicUrl.replace(/\/+$/, '') };
}

/**
 * A realm as its pages get it: the names and its branding, the colour by way of its stylesheet
 * (http/routes/branding.ts) since the pages' CSP allows no inline style.
 */
export const pageRealm = (realm: { name: string; displayName: string | null; logoUrl?: string | null; primaryColor?: string | null }): PageRealm => ({
    name: realm.name, displayName: realm.displayName, logoUrl: realm.logoUrl ?? null, primaryColor: realm.primaryColor ?? null,
    brandingStylesheetUrl: realm.primaryColor ? brandingStylesheetPath(realm.name) : null,
});

/** The stylesheet carrying a branded realm's colour (http/routes/branding.ts). */
const brandingStylesheetPath = (realmName: string): string => `/realms/${encodeURIComponent(realmName)}/branding.css`;

/** The console session the request's cookie names, if live (anything wrong is no session). */
export function sessionOf(context: BrowserContext, request: FastifyRequest): Promise<ConsoleSession | null> {
    return verifyConsoleSession(context.deps.db, request.cookies[context.cookies.sessionName]);
}

/**
 * Delivers an authorization response: response_mode=query answers 303 See Other to the redirect URI
 * (RFC 9700 §4.11: 303 so a POSTed form is never re-posted), form_post a page whose form posts
 * the parameters there (OAuth 2.0 Form Post Response Mode §2).
 */
export function deliver(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, response: AuthorizationResponse, uiLocales?: string): FastifyReply {
    const { target } = response;
    if (target.responseMode === 'form_post') {
        const html = context.deps.views.renderFormPost({
            realm: pageRealm(target.realm), form: { action: target.redirectUri, fields: response.params }, locale: pageLocale(request, uiLocales),
        });
        return sendPage(reply, html, { publicOrigin: context.cookies.origin, formTargets: [formTarget(target.redirectUri)] });
    }
    return reply.status(303).headers({ location: responseUrl(response), 'cache-control': 'no-store', 'x-frame-options': 'DENY' }).send();
}

/** A failed validation: the error page when the redirect URI is not trusted, else the error at the redirect URI. */
export function sendInvalid(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, validation: Exclude<Validation, { ok: true }>, uiLocales?: string): FastifyReply {
    if ('page' in validation) {
        return sendErrorPage(reply, context.deps.views, {
            status: 400, realm: validation.page.realm && pageRealm(validation.page.realm), error: validation.page.error,
            message: validation.page.message, publicOrigin: context.cookies.origin, locale: pageLocale(request, uiLocales),
        });
    }
    return deliver(context, request, reply, validation.redirect, uiLocales);
}

/** A request whose form failed the CSRF check: refused on a page, never redirected. */
export function sendCsrfRefusal(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, realm: PageRealm | null, uiLocales?: string): FastifyReply {
    const locale = pageLocale(request, uiLocales);
    return sendErrorPage(reply, context.deps.views, {
        status: 403, realm, error: 'invalid_request', message: pageStrings(locale).formExpired, publicOrigin: context.cookies.origin, locale,
    });
}

/**
 * The realm's enabled OpenID Connect and OAuth 2.0 providers of a sign-in page (auth-page contract version 5),
 * the form their buttons post, and the upstream origins that form ends at (its answer is a 303 to
 * the upstream, which the page's CSP form-action must allow: Chromium enforces it on redirects).
 */
export async function providerChoice(
    context: BrowserContext, realmId: string, action: string, fields: PageForm['fields'],
): Promise<{ view: Pick<SignInView, 'providers' | 'providerForm'>; formTargets: string[] }> {
    const rows = await listEnabledProviders(context.deps.db, realmId, ['oidc', 'oauth2']);
    if (rows.length === 0) return { view: {}, formTargets: [] };
    const providers: PageProvider[] = rows.map((row) => ({ id: row.id, name: row.name, displayName: row.display_name }));
    const formTargets = rows.map((row) => formTarget((row.protocol === 'oidc' ? row.issuer : row.authorization_url) ?? '')).filter((target): target is string => target !== null);
    return { view: { providers, providerForm: { action, fields } }, formTargets };
}

/**
 * The sign-in page's "Forgot password?" link: only with a mail relay, as without one the reset
 * link could not be sent (the API answers 503 mail_unavailable); under the realm, as the mailed
 * links are (http/routes/account-pages.ts).
 */
export function forgotPasswordLink(context: BrowserContext, realm: { name: string }): Pick<SignInView, 'forgotPasswordUrl'> {
    if (!context.deps.mailer) return {};
    return { forgotPasswordUrl: `${context.base}/realms/${encodeURIComponent(realm.name)}/forgot-password` };
}

/** Renders the next step of the flow (oauth2/authorize/flow.ts). */
export async function sendOutcome(
    context: BrowserContext,
    request: FastifyRequest,
    reply: FastifyReply,
    authorization: AuthorizationRequest,
    outcome: Outcome,
    signIn: { username?: string | undefined; error?: string; status?: number; federatedLogin?: FederatedLogin } = {},
): Promise<FastifyReply> {
    if (outcome.kind === 'respond') return deliver(context, request, reply, outcome.response, authorization.uiLocales);
    const { views } = context.deps;
    const locale = pageLocale(request, authorization.uiLocales);
    const realm = pageRealm(authorization.client.realm);
    const client = { name: authorization.client.name, displayName: authorization.client.displayName };
    const csrf = csrfToken(request, reply, context.cookies);
    // the forms end in a 303 to the redirect URI, which form-action must allow (Chromium enforces it on redirects)
    const formTargets = [formTarget(authorization.redirectUri)];
    if (outcome.kind === 'sign-in') {
        const username = signIn.username ?? authorization.loginHint;
        const fields = { ...authorization.params, csrf };
        const choice = await providerChoice(context, authorization.client.realm.id, `${context.base}/authorize/federated`, fields);
        formTargets.push(...choice.formTargets);
        const passkeys = await findRealmPasskeySettings(context.deps.db, authorization.client.realm.id);
        const html = views.renderSignIn({
            locale, realm, client, form: { action: `${context.base}/authorize/sign-in`, fields },
            ...choice.view, ...forgotPasswordLink(context, realm),
            // API.md §8 passkeysEnabled: the passkey button and autofill
            ...(passkeys?.enabled ? { passkey: { optionsUrl: passkeyOptionsUrl(context), form: { action: `${context.base}/authorize/passkey`, fields } } } : {}),
            ...(username !== undefined ? { username } : {}), ...(signIn.error !== undefined ? { error: signIn.error } : {}),
        });
        return sendPage(reply, html, { status: signIn.status ?? 200, publicOrigin: context.cookies.origin, formTargets });
    }
    const html = views.renderConsent({
        locale, realm, client, user: outcome.session.userName, scopes: outcome.scopes,
        form: { action: `${context.base}/authorize/consent`, fields: { ...authorization.params, csrf, session_id: outcome.session.id } },
        ...(signIn.federatedLogin ? { federatedLogin: signIn.federatedLogin } : {}),
    });
    return sendPage(reply, html, { publicOrigin: context.cookies.origin, formTargets });
}

/** Where the pages' script asks for a passkey ceremony's options (http/routes/passkey-forms.ts). */
export const passkeyOptionsUrl = (context: BrowserContext): string => `${context.base}/authorize/passkey-options`;

/**
 * The second-factor page's choice (a code or a passkey, API.md §8): the code form unless the user holds no TOTP
 * authenticator, and a passkey posting to the same form when it holds one.
 */
export function secondFactorChoice(context: BrowserContext, offer: { totp: boolean; passkey: boolean }, form: PageForm): Pick<SecondFactorView, 'passkey' | 'totp'> {
    return { ...(offer.passkey ? { passkey: { optionsUrl: passkeyOptionsUrl(context), form } } : {}), ...(offer.totp ? {} : { totp: false }) };
}

/** The second sign-in page of an authorization request (multi-factor sign-in with TOTP; RFC 6238): the request and the CSRF token in hidden fields. */
export function sendSecondFactor(
    context: BrowserContext, request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest,
    page: { error?: string; status?: number; offer?: { totp: boolean; passkey: boolean } } = {},
): FastifyReply {
    const csrf = csrfToken(request, reply, context.cookies);
    const form = { action: `${context.base}/authorize/second-factor`, fields: { ...authorization.params, csrf } };
    const html = context.deps.views.renderSecondFactor({
        locale: pageLocale(request, authorization.uiLocales), realm: pageRealm(authorization.client.realm), client: { name: authorization.client.name, displayName: authorization.client.displayName },
        form, ...secondFactorChoice(context, page.offer ?? { totp: true, passkey: false }, form),
        ...(page.error !== undefined ? { error: page.error } : {}),
    });
    return sendPage(reply, html, { status: page.status ?? 200, publicOrigin: context.cookies.origin, formTargets: [formTarget(authorization.redirectUri)] });
}

/**
 * The error handler of the browser routes: every error as a page, never JSON (a throttled address
 * included, with its Retry-After); a server fault is logged as `what` failed and shown without its detail.
 */
export function sendErrorAsPage(context: BrowserContext, error: unknown, request: FastifyRequest, reply: FastifyReply, what = 'authorization page'): FastifyReply {
    const { status, body } = renderError(error as Parameters<typeof renderError>[0], request, reply);
    if (status >= 500) request.log.error({ err: error }, `${what} failed`);
    const locale = pageLocale(request);
    return sendErrorPage(reply, context.deps.views, {
        status, realm: null, error: status >= 500 ? 'server_error' : body.code,
        message: status >= 500 ? pageStrings(locale).serverError : body.message, publicOrigin: context.cookies.origin, locale,
    });
}

/** The error handler of a page scope (sendErrorAsPage, logged as `what`). */
export function sendFailurePage(context: BrowserContext, what: string) {
    return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => sendErrorAsPage(context, error, request, reply, what);
}
