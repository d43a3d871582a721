import { timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { openProviderSecret } from '../../authn/password-login.js';
import { fromDbBool } from '../../db/values.js';
import { completeUpstreamLogin, newChecks, upstreamAuthorizationUrl, type UpstreamCredentials } from '../../federation/oidc.js';
import { provisionUser } from '../../federation/provision.js';
import { AccountLinkRefusedError, ProviderSecretUnavailableError, UpstreamUnavailableError } from '../../federation/upstream-identity.js';
import { decide } from '../../oauth2/authorize/flow.js';
import { sha256Hex } from '../../secrets/digests.js';
import { findPageRealm, findSignInUserById } from '../../storage/authorize-lookups.js';
import { findProvider, insertFederatedLogin, takeFederatedLogin, type ProviderRow } from '../../storage/identity-providers.js';
import { createSigner, type Signer } from '../../tokens/signer.js';
import { pageStrings } from '../../views/locale.js';
import { sendErrorPage } from '../auth-pages.js';
import { browserContext, pageRealm, sendErrorAsPage, sendInvalid, sendOutcome, type BrowserContext } from '../authorize-render.js';
import { firstFactorPassed } from '../browser-sign-in.js';
import { contract } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import { pageLocale } from '../page-locale.js';
import { authorizePages, validatedForm } from './authorize-forms.js';
import { checkedForm, confirmPage, devicePages } from './device-page.js';

/*
 * Sign-in through an upstream OpenID Connect or OAuth 2.0 provider (authorization code with PKCE, state and nonce), from
 * the sign-in page of the authorization endpoint and of the /device page: the provider's button
 * posts here with the page's hidden fields; the browser goes to the upstream with code + PKCE,
 * state and nonce; the upstream sends it back to one callback, where the round trip is taken once
 * (a replayed callback finds nothing), the state must equal the one this browser holds in its
 * cookie, and the code is redeemed and the ID token verified (federation/oidc.ts). The user linked
 * to the upstream subject — created and filed on a first login — then signs in as with a
 * password: the second factor when due, then consent or the code, or the device decision. The
 * page after it carries `federatedLogin` with the provider's id (contract version 5).
 */

const FORM = ['application/x-www-form-urlencoded'] as const;
const PAGE = Type.String({ description: 'An HTML page (error, consent, second factor, device decision).' });
const REDIRECT = Type.Null({ description: 'See Other: to the upstream provider, or the authorization response at the redirect URI.' });
/** A round trip must come back within this (the upstream's own sign-in included). */
const ROUND_TRIP_MAX_AGE = 600;

/** Where the sign-in goes on after the upstream: the authorization request, or the /device page's code. */
type Resume = { kind: 'authorize'; params: Record<string, string | undefined> } | { kind: 'device'; userCode: string };

const callbackUrl = (context: BrowserContext) => `${context.base}/authorize/federated/callback`;

/** The failure pages of a round trip, in the language of the sign-in it belongs to (its `ui_locales` when known). */
function failures(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, uiLocales?: string) {
    const locale = pageLocale(request, uiLocales);
    return {
        S: pageStrings(locale),
        page: (realm: Parameters<typeof pageRealm>[0] | null, status: number, error: string, message: string): FastifyReply =>
            sendErrorPage(reply, context.deps.views, { status, realm: realm && pageRealm(realm), error, message, publicOrigin: context.cookies.origin, locale }),
    };
}

/**
 * An enabled OIDC or OAuth 2.0 provider of the realm, and what authenticates Realmgate at it: its
 * client secret opened (a disabled realm key fails here; spec States) and, for private_key_jwt, the
 * realm's signing key, whose public half the realm's JWKS serves to the upstream (RFC 7523 §2.2).
 */
async function usableProvider(context: BrowserContext, signer: Signer, realmId: string, providerId: unknown): Promise<{ provider: ProviderRow; credentials: UpstreamCredentials } | null> {
    if (typeof providerId !== 'string' || !/^[0-9a-f-]{36}$/i.test(providerId)) return null;
    const provider = await findProvider(context.deps.db, realmId, providerId.toLowerCase());
    if (!provider || !fromDbBool(provider.enabled) || provider.protocol === 'ldap') return null;
    const clientSecret = await openProviderSecret(context.deps.secrets, context.deps.db, provider.client_secret);
    return { provider, credentials: { clientSecret, assertionKey: () => signer(context.deps.db, realmId) } };
}

/** Sends the browser to the upstream, the round trip stored by its state's digest and the state in a cookie. */
async function start(context: BrowserContext, signer: Signer, request: FastifyRequest, reply: FastifyReply, realm: { id: string; name: string; displayName: string | null }, providerId: unknown, resume: Resume): Promise<FastifyReply> {
    const { deps } = context;
    const { S, page } = failures(context, request, reply, resume.kind === 'authorize' ? resume.params.ui_locales : undefined);
    let usable;
    try {
        usable = await usableProvider(context, signer, realm.id, providerId);
    } catch (error) {
        if (!(error instanceof ProviderSecretUnavailableError)) throw error;
        return page(realm, 503, ErrorCode.TEMPORARILY_UNAVAILABLE, S.federatedUnavailable(S.identityProvider));
    }
    if (!usable) return page(realm, 400, ErrorCode.INVALID_REQUEST, 'provider_id names no enabled identity provider of this realm.');
    const { provider, credentials } = usable;
    const checks = newChecks();
    let url: URL;
    try {
        url = await upstreamAuthorizationUrl(provider, credentials, callbackUrl(context), checks, deps.outboundFetch);
    } catch (error) {
        if (!(error instanceof UpstreamUnavailableError)) throw error;
        request.log.warn({ providerId: provider.id }, error.message);
        return page(realm, 503, ErrorCode.TEMPORARILY_UNAVAILABLE, S.federatedUnavailable(provider.display_name ?? provider.name));
    }
    const now = new Date();
    await insertFederatedLogin(deps.db, deps.handle.dialect, sha256Hex(checks.state), {
        providerId: provider.id, realmId: realm.id, nonce: checks.nonce, codeVerifier: checks.codeVerifier, resume: JSON.stringify(resume),
    }, new Date(now.getTime() + ROUND_TRIP_MAX_AGE * 1000), now);
    // Lax: the upstream sends the browser back with a top-level GET, which Lax cookies accompany
    reply.setCookie(context.cookies.federatedName, checks.state, { httpOnly: true, sameSite: 'lax', secure: context.cookies.secure, path: '/', maxAge: ROUND_TRIP_MAX_AGE });
    return reply.status(303).headers({ location: url.href, 'cache-control': 'no-store' }).send();
}

const sameState = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The upstream's answer: the round trip taken, the code redeemed, the user linked, then the flow goes on. */
async function callback(context: BrowserContext, signer: Signer, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { deps } = context;
    const query = request.query as Record<string, string | undefined>;
    const early = failures(context, request, reply);
    const held = request.cookies[context.cookies.federatedName];
    reply.clearCookie(context.cookies.federatedName, { httpOnly: true, sameSite: 'lax', secure: context.cookies.secure, path: '/' });
    // RFC 6749 §10.12: the state must be the one this browser was given (login CSRF)
    if (!query.state || !held || !sameState(query.state, held)) return early.page(null, 400, ErrorCode.INVALID_REQUEST, early.S.federatedExpired);
    const trip = await takeFederatedLogin(deps.db, deps.handle.dialect, sha256Hex(query.state), new Date());
    if (!trip) return early.page(null, 400, ErrorCode.INVALID_REQUEST, early.S.federatedExpired);
    const resume = JSON.parse(trip.resume) as Resume;
    const { S, page } = failures(context, request, reply, resume.kind === 'authorize' ? resume.params.ui_locales : undefined);
    const realm = await findPageRealm(deps.db, trip.realmId);
    if (!realm) return page(null, 400, ErrorCode.INVALID_REQUEST, S.federatedExpired);
    let usable;
    try {
        usable = await usableProvider(context, signer, trip.realmId, trip.providerId);
    } catch (error) {
        if (!(error instanceof ProviderSecretUnavailableError)) throw error;
        return page(realm, 503, ErrorCode.TEMPORARILY_UNAVAILABLE, S.federatedUnavailable(S.identityProvider));
    }
    if (!usable) return page(realm, 400, ErrorCode.INVALID_REQUEST, S.federatedExpired);
    const { provider, credentials } = usable;
    const providerName = provider.display_name ?? provider.name;
    let identity;
    try {
        const current = new URL(request.url, `${context.base}/`);
        identity = await completeUpstreamLogin(provider, credentials, new URL(`${callbackUrl(context)}${current.search}`), { state: query.state, nonce: trip.nonce, codeVerifier: trip.codeVerifier }, deps.outboundFetch);
    } catch (error) {
        // an upstream error answer, a refused code, a tampered or foreign ID token: never a session
        request.log.warn({ providerId: provider.id, reason: (error as Error).message }, 'federated sign-in refused');
        return page(realm, 400, ErrorCode.ACCESS_DENIED, S.federatedFailed(providerName));
    }
    let userId;
    try {
        ({ userId } = await provisionUser({ db: deps.db, dialect: deps.handle.dialect }, provider, identity));
    } catch (error) {
        if (!(error instanceof AccountLinkRefusedError)) throw error;
        // neither linked nor duplicated (federation/provision.ts): the person proves the local account first
        request.log.warn({ providerId: provider.id }, 'federated sign-in refused: the address belongs to an account it may not be linked to');
        return page(realm, 409, ErrorCode.ENTITY_CONFLICT, S.federatedAccountExists(providerName));
    }
    const user = await findSignInUserById(deps.db, realm.id, userId);
    if (!user?.active) return page(realm, 403, ErrorCode.ENTITY_INACTIVE, 'The account is inactive.');
    const federatedLogin = { providerId: provider.id };
    if (resume.kind === 'device') {
        let found;
        try {
            found = await deps.deviceVerification.locate({ address: request.ip, sessionId: null }, resume.userCode);
        } catch {
            return page(realm, 400, ErrorCode.INVALID_REQUEST, S.deviceCodeUnknown);
        }
        const step = await firstFactorPassed(context, request, reply, devicePages(context, request, reply, found, resume.userCode), user, { providerId: provider.id });
        if ('reply' in step) return step.reply;
        return confirmPage(context, request, reply, found, resume.userCode, step.session, federatedLogin);
    }
    const validation = await deps.authorizationRequests.validate(resume.params);
    if (!validation.ok) return sendInvalid(context, request, reply, validation, resume.params.ui_locales);
    const authorization = validation.request;
    const step = await firstFactorPassed(context, request, reply, authorizePages(context, request, reply, authorization), user, { providerId: provider.id });
    if ('reply' in step) return step.reply;
    const outcome = await decide({ db: deps.db, dialect: deps.handle.dialect }, authorization, step.session, { fresh: true });
    return sendOutcome(context, request, reply, authorization, outcome, { federatedLogin });
}

export function registerFederatedSignInRoutes(app: FastifyInstance, deps: AppDeps): void {
    const context = browserContext(deps);
    const signer = createSigner(deps.keys);
    void app.register(async (scope) => {
        scope.setErrorHandler((error, request, reply) => sendErrorAsPage(context, error, request, reply, 'federated sign-in'));
        scope.post('/authorize/federated', contract({
            auth: 'none', tags: ['oauth2'], summary: 'Sign in through an identity provider from the authorization endpoint',
            description: '`provider_id` (an enabled OpenID Connect or OAuth 2.0 provider of the client\'s realm), the CSRF token and the authorization request carried in hidden fields: 303 to the upstream provider (authorization code with PKCE S256, state, nonce).',
            consumes: FORM, body: Type.Unknown({ description: 'The provider form of the sign-in page.' }),
            response: { 200: PAGE, 303: REDIRECT }, errors: [403],
        }), async (request, reply) => {
            const checked = await validatedForm(context, request, reply);
            if (!('authorization' in checked)) return checked;
            const { form, authorization } = checked;
            return start(context, signer, request, reply, authorization.client.realm, form.provider_id, { kind: 'authorize', params: { ...authorization.params } });
        });
        scope.post('/device/federated', contract({
            auth: 'none', tags: ['auth pages'], summary: 'Sign in through an identity provider from the device verification page',
            description: '`provider_id`, `user_code` and the CSRF token: 303 to the upstream provider; back at the callback, the device decision page.',
            consumes: FORM, body: Type.Unknown({ description: 'The provider form of the device sign-in page.' }),
            response: { 200: PAGE, 303: REDIRECT }, errors: [403, 429],
        }), async (request, reply) => {
            const checked = await checkedForm(context, request, reply);
            if (!('found' in checked)) return checked;
            const { form, typed, found } = checked;
            return start(context, signer, request, reply, found.realm, form.provider_id, { kind: 'device', userCode: typed });
        });
        scope.get('/authorize/federated/callback', contract({
            auth: 'none', tags: ['oauth2'], summary: 'The redirect URI Realmgate registers at upstream identity providers',
            description: 'The upstream\'s authorization response (RFC 6749 §4.1.2): `code` and `state` (or `error`). The state must be the one this browser holds; the round trip is used once.',
            querystring: Type.Object({
                code: Type.Optional(Type.String({ maxLength: 4096 })), state: Type.Optional(Type.String({ maxLength: 512 })),
                iss: Type.Optional(Type.String({ maxLength: 2048 })), error: Type.Optional(Type.String({ maxLength: 256 })),
                error_description: Type.Optional(Type.String({ maxLength: 2048 })), session_state: Type.Optional(Type.String({ maxLength: 512 })),
            }),
            response: { 200: PAGE, 303: REDIRECT }, errors: [403, 503],
        }), (request, reply) => callback(context, signer, request, reply));
    });
}

