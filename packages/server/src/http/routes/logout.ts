import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { readLogoutParams, sessionsEndedByHint, validateLogout, type LogoutRequest } from '../../oauth2/authorize/logout.js';
import { contract } from '../contracts/route-contract.js';
import { clearSessionCookie, csrfToken, formIsSameSite, formTarget, sendErrorPage, sendPage } from '../auth-pages.js';
import { browserContext, pageRealm, sendFailurePage, sessionOf, type BrowserContext } from '../authorize-render.js';
import type { AppDeps } from '../deps.js';
import { pageLocale } from '../page-locale.js';
import { pageStrings } from '../../views/locale.js';

const PAGE = Type.String({ description: 'An HTML page: the confirmation, signed out, or an error.' });
const REDIRECT = Type.Null({ description: 'See Other: the post_logout_redirect_uri, with state.' });

type Validated = Extract<LogoutRequest, { ok: true }>;

/** After the logout: 303 to the registered post_logout_redirect_uri with `state` (RP-Initiated Logout §3), else the signed-out page. */
function finish(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, logout: Validated, uiLocales: string | undefined): FastifyReply {
    if (logout.redirect) {
        const { uri, state } = logout.redirect;
        const location = state === undefined ? uri : `${uri}${uri.includes('?') ? '&' : '?'}${new URLSearchParams({ state }).toString()}`;
        return reply.status(303).headers({ location, 'cache-control': 'no-store', 'x-frame-options': 'DENY' }).send();
    }
    const realm = logout.realm ? pageRealm(logout.realm) : { name: 'Realmgate', displayName: null };
    return sendPage(reply, context.deps.views.renderLoggedOut({ realm, locale: pageLocale(request, uiLocales) }), { publicOrigin: context.cookies.origin });
}

/**
 * OIDC RP-Initiated Logout 1.0 at the end_session_endpoint: a verified id_token_hint of this
 * browser's own session ends it at once (oauth2/authorize/logout.ts sessionsEndedByHint); any other
 * request asks on a page whose form (CSRF token, same origin) posts back here and ends this
 * browser's session alone (§2: the OP asks the End-User whether to log out).
 */
async function logout(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, source: unknown, posted: boolean): Promise<FastifyReply> {
    const { deps, cookies } = context;
    const params = readLogoutParams(source);
    const locale = pageLocale(request, params?.ui_locales);
    const fail = (message: string, realm: LogoutRequest['realm'] = null, status = 400) => sendErrorPage(reply, deps.views, {
        status, realm: realm && pageRealm(realm), error: 'invalid_request', message, publicOrigin: cookies.origin, locale,
    });
    if (params === null) return fail('The logout parameters must be single strings.');
    const session = await sessionOf(context, request);
    const checked = await validateLogout(deps.db, deps.config.publicUrl, params, session);
    if (!checked.ok) return fail(checked.message, checked.realm);
    const form = (source ?? {}) as Record<string, unknown>;
    // the confirmation ends this browser's own session alone, whatever else the request names
    if (posted && form.confirm !== undefined) {
        if (!formIsSameSite(request, cookies, form.csrf)) return fail(pageStrings(locale).formExpired, checked.realm, 403);
        if (session) await deps.sessions.revoke(deps.db, session.id);
        clearSessionCookie(reply, cookies);
        return finish(context, request, reply, checked, params.ui_locales);
    }
    const hinted = checked.hint ? await sessionsEndedByHint(deps.db, checked.hint, session) : null;
    if (hinted) {
        for (const id of hinted) await deps.sessions.revoke(deps.db, id);
        clearSessionCookie(reply, cookies);
        return finish(context, request, reply, checked, params.ui_locales);
    }
    const csrf = csrfToken(request, reply, cookies);
    const realm = checked.realm ? pageRealm(checked.realm) : { name: 'Realmgate', displayName: null };
    const html = deps.views.renderLogout({
        realm,
        locale,
        form: {
            action: `${context.base}/logout`,
            fields: {
                post_logout_redirect_uri: params.post_logout_redirect_uri, state: params.state, client_id: checked.client?.id, ui_locales: params.ui_locales, csrf, confirm: '1',
            },
        },
    });
    return sendPage(reply, html, { publicOrigin: cookies.origin, formTargets: [checked.redirect ? formTarget(checked.redirect.uri) : null] });
}

export function registerLogoutRoutes(app: FastifyInstance, deps: AppDeps): void {
    const context = browserContext(deps);
    void app.register(async (scope) => {
        scope.setErrorHandler(sendFailurePage(context, 'logout page'));
        const description = '`id_token_hint`, `post_logout_redirect_uri` (exactly one of the client\'s postLogoutRedirectUri), `state`, `client_id` (OIDC RP-Initiated Logout 1.0 §2).';
        scope.get('/logout', contract({
            auth: 'none', tags: ['oauth2'], summary: 'End-session endpoint (OIDC RP-Initiated Logout 1.0)', description,
            response: { 200: PAGE, 303: REDIRECT }, errors: [403],
        }), (request, reply) => logout(context, request, reply, request.query, false));
        scope.post('/logout', contract({
            auth: 'none', tags: ['oauth2'], summary: 'End-session endpoint (OIDC RP-Initiated Logout 1.0), form post and confirmation',
            description, consumes: ['application/x-www-form-urlencoded'], body: Type.Unknown({ description: 'The logout parameters, or the confirmation form.' }),
            response: { 200: PAGE, 303: REDIRECT }, errors: [403],
        }), (request, reply) => logout(context, request, reply, request.body, true));
    });
}
