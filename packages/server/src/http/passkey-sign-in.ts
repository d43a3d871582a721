import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { ConsoleSession } from '../authn/console-session.js';
import { assertPasskey } from '../authn/passkey-assertion.js';
import { authenticationOptions, CHALLENGE_MAX_AGE_SECONDS, registrationOptions } from '../authn/passkey-ceremonies.js';
import { findPendingSignIn } from '../authn/pending-sign-in.js';
import { secondFactorNeeded } from '../authn/second-factor.js';
import { registeringUser, registerPromptedPasskey } from '../domains/authenticators/passkeys.js';
import { isFailedAuthentication } from '../limits/failed-authentication.js';
import type { AuthorizationRequest } from '../oauth2/authorize/request.js';
import { findSignInUserById } from '../storage/authorize-lookups.js';
import { findRealmPasskeySettings, listPasskeysOfUser } from '../storage/passkeys.js';
import { ACR } from '../tokens/claims.js';
import { STRINGS } from '../views/strings.js';
import { pageStrings } from '../views/locale.js';
import { csrfToken, formIsSameSite, formTarget, sendPage } from './auth-pages.js';
import { pageLocale } from './page-locale.js';
import { pageRealm, passkeyOptionsUrl, sessionOf, type BrowserContext } from './authorize-render.js';
import { signedIn, textOf, type SignInPages, type SignInStep } from './browser-sign-in.js';
import { requestOfEvent } from './event-request.js';
import { passkeyDeps, passkeyResponseOf } from './passkey-factor.js';

type Form = Record<string, unknown>;

/**
 * "Sign in with a passkey" and passkey autofill (WebAuthn §5.1.4.1 conditional mediation): a discoverable credential of the
 * page's realm, user verification required. It proves possession and the user's verification, so
 * it satisfies the realm's multi-factor requirement (acr `mfa`) without a second page. Failures
 * count as failed authentications toward the address and, for a known credential, its user's
 * second-factor limit (authn/passkey-assertion.ts).
 */
export async function passkeyStep(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, pages: SignInPages, form: Form): Promise<SignInStep> {
    const { deps } = context;
    const S = pageStrings(pages.locale);
    const settings = await findRealmPasskeySettings(deps.db, pages.realm.id);
    if (!settings?.enabled) return { reply: await pages.signIn(S.passkeysDisabled, 403) };
    const result = await assertPasskey(passkeyDeps(context), pages.realm.id, null, passkeyResponseOf(textOf(form, 'passkey_response')), requestOfEvent(request));
    if (!result.ok) {
        if (isFailedAuthentication(result.error)) await deps.limits.failed(request);
        if (result.reason === 'cloned') request.log.warn({ realmId: pages.realm.id }, 'passkey refused: its signature counter did not grow (possibly a cloned authenticator)');
        if (result.reason === 'locked') {
            reply.header('retry-after', String(result.error.retryAfter ?? 1));
            return { reply: await pages.signIn(S.secondFactorLocked, 429) };
        }
        return { reply: await pages.signIn(S.passkeyFailed, 401) };
    }
    const user = await findSignInUserById(deps.db, pages.realm.id, result.userId);
    if (!user?.active) return { reply: await pages.signIn(S.passkeyFailed, 401) };
    if (await secondFactorNeeded(deps.db, pages.realm.id, user.id) === 'unverified') return { reply: await pages.signIn(S.emailNotVerified, 403) };
    return signedIn(context, request, reply, pages, user, ACR.SECOND_FACTOR, { passkey: true });
}

/** A JSON answer of the options route (the page's script reads `message` on failure). */
function answer(reply: FastifyReply, status: number, body: Record<string, unknown>): FastifyReply {
    return reply.status(status).headers({ 'cache-control': 'no-store' }).send(body);
}

const refusal = (reply: FastifyReply, status: number, code: string, message: string) => answer(reply, status, { statusCode: status, code, message });

/**
 * A browser session fresh enough to add a passkey from the sign-in page's offer: the password was
 * proven within the challenge lifetime (the offer follows the sign-in at once), standing in for the
 * fresh proof the account API asks (authn/fresh-proof.ts).
 */
function freshFromSignIn(session: ConsoleSession | null): session is ConsoleSession {
    return session !== null && Date.now() - session.authTime.getTime() <= CHALLENGE_MAX_AGE_SECONDS * 1000;
}

/**
 * `POST /authorize/passkey-options`: the options of the ceremony a page's script starts, after the
 * CSRF check of every auth form. `sign-in`: the realm of the carried authorization request, a
 * discoverable credential; `second-factor`: the pending sign-in's user and its passkeys;
 * `registration`: the browser session just signed in (the offer after a password sign-in).
 */
export async function passkeyOptions(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Form;
    if (!formIsSameSite(request, context.cookies, form.csrf)) return refusal(reply, 403, 'invalid_request', 'This form expired or was not sent from this site.');
    const deps = passkeyDeps(context);
    const ceremony = textOf(form, 'ceremony');
    let realmId: string;
    let build: () => Promise<unknown>;
    if (ceremony === 'sign-in') {
        const validation = await context.deps.authorizationRequests.validate(form);
        if (!validation.ok) return refusal(reply, 400, 'invalid_request', 'The authorization request is not valid.');
        realmId = validation.request.client.realm.id;
        build = () => authenticationOptions(deps, realmId, null);
    } else if (ceremony === 'second-factor') {
        const pending = await findPendingSignIn(deps.db, deps.dialect, request.cookies[context.cookies.pendingName]);
        if (!pending) return refusal(reply, 401, 'login_required', STRINGS.secondFactorExpired);
        realmId = pending.realmId;
        build = async () => authenticationOptions(deps, realmId, { id: pending.userId, credentials: await listPasskeysOfUser(deps.db, pending.userId) });
    } else if (ceremony === 'registration') {
        const session = await sessionOf(context, request);
        if (!freshFromSignIn(session)) return refusal(reply, 401, 'login_required', STRINGS.secondFactorExpired);
        realmId = session.realmId;
        build = async () => registrationOptions(deps, await registeringUser(deps, { id: session.userId, name: session.userName, realmId: session.realmId }));
    } else {
        return refusal(reply, 400, 'bad_request', 'ceremony must be sign-in, second-factor or registration.');
    }
    const settings = await findRealmPasskeySettings(deps.db, realmId);
    if (!settings?.enabled) return refusal(reply, 403, 'access_denied', STRINGS.passkeysDisabled);
    return answer(reply, 200, { options: await build() });
}

/** The offer after a password sign-in (API.md §8 passkeyPrompt): its page, for the session just created. */
export function sendPasskeyPrompt(
    context: BrowserContext, request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest, session: ConsoleSession,
    page: { error?: string; status?: number } = {},
): FastifyReply {
    const render = context.deps.views.renderPasskeyPrompt!;
    const fields = { ...authorization.params, csrf: csrfToken(request, reply, context.cookies), session_id: session.id };
    const form = { action: `${context.base}/authorize/passkey-prompt`, fields };
    const html = render({
        locale: pageLocale(request, authorization.uiLocales), realm: pageRealm(authorization.client.realm), client: { name: authorization.client.name, displayName: authorization.client.displayName },
        form, passkey: { optionsUrl: passkeyOptionsUrl(context), form }, ...(page.error !== undefined ? { error: page.error } : {}),
    });
    return sendPage(reply, html, { status: page.status ?? 200, publicOrigin: context.cookies.origin, formTargets: [formTarget(authorization.redirectUri)] });
}

/**
 * The offer's answer: Skip, or the new passkey's registration response, verified and stored for the
 * session's user. Answers whether the flow goes on with the session (fresh: the page was shown to
 * it) or the prompt is shown again after a failed registration.
 */
export async function answerPasskeyPrompt(
    context: BrowserContext, request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest, form: Form,
): Promise<{ reply: FastifyReply } | { session: ConsoleSession | null; fresh: boolean }> {
    const session = await sessionOf(context, request);
    const answered = session !== null && session.id === form.session_id;
    const response = textOf(form, 'passkey_response');
    if (!answered || textOf(form, 'skip') !== '' || response === '') return { session, fresh: answered };
    const parsed = passkeyResponseOf<RegistrationResponseJSON>(response);
    const deps = passkeyDeps(context);
    const record = parsed && await registerPromptedPasskey(
        { ...deps, events: context.deps.events }, { id: session.userId, realmId: session.realmId }, STRINGS.passkeyDefaultName, parsed, requestOfEvent(request),
    );
    if (!record) return { reply: sendPasskeyPrompt(context, request, reply, authorization, session, { error: pageStrings(pageLocale(request, authorization.uiLocales)).passkeyRegistrationFailed, status: 400 }) };
    return { session, fresh: true };
}
