import type { FastifyReply, FastifyRequest } from 'fastify';
import { sameSecret, type CookiePolicy } from '../authn/console-session.js';
import { randomToken } from '../secrets/digests.js';
import type { AuthConsole, PageRealm } from '../views/contract.js';

/**
 * A CSP source for a URI a form may submit to (or be redirected to after a submission, which
 * Chromium holds to form-action too): the origin of an http(s) URI, the scheme of a private-use
 * one (RFC 8252 §7.1: `com.example.app:/callback`).
 */
export function formTarget(uri: string): string | null {
    try {
        const url = new URL(uri);
        return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
    } catch {
        return null;
    }
}

/**
 * The headers of every auth page (RFC 9700 §4.16 clickjacking; OWASP CSP Cheat Sheet): nothing
 * loads but the server's own stylesheets and script (whose only requests are the passkey options,
 * to this origin: connect-src), forms submit only to the server and the URIs named (the redirect
 * URI a sign-in ends at), no framing, no caching.
 *
 * Images: this origin and any https origin (`img-src 'self' https:`), for a realm's logo, which may
 * live on the realm's own site. The policy is one for every realm — naming each logo's origin would
 * make a page's policy depend on realm data — and the widening is to images only, which run no code;
 * `https:` keeps mixed content and `data:`/`blob:` out, and the pages' `same-origin` referrer policy
 * keeps the page's URL (its state, its code) from the logo's host.
 */
export function sendPage(reply: FastifyReply, html: string, options: { status?: number; formTargets?: readonly (string | null)[]; publicOrigin: string }): FastifyReply {
    const targets = [...new Set(["'self'", options.publicOrigin, ...(options.formTargets ?? []).filter((target): target is string => target !== null)])];
    return reply.status(options.status ?? 200).headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'none'; style-src 'self'; script-src 'self'; connect-src ${[...new Set(["'self'", options.publicOrigin])].join(' ')}; img-src 'self' https:; form-action ${targets.join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
        'x-frame-options': 'DENY',
        'cache-control': 'no-store',
        pragma: 'no-cache',
        // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` with a form
        // POST, which the CSRF check must refuse; same-origin still keeps the request's URL (its
        // state, its code) from every other site (RFC 9700 §4.2.4)
        'referrer-policy': 'same-origin',
    }).send(html);
}

/** An error page (never a redirect: the redirect URI is not trusted, or there is none). */
export function sendErrorPage(
    reply: FastifyReply, views: AuthConsole, page: { status: number; realm: PageRealm | null; error: string; message: string; publicOrigin: string; locale: string },
): FastifyReply {
    return sendPage(reply, views.renderError({ realm: page.realm, error: page.error, message: page.message, locale: page.locale }), { status: page.status, publicOrigin: page.publicOrigin });
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The double-submit CSRF token of the auth forms (OWASP CSRF Prevention Cheat Sheet): a random
 * value in a SameSite=Strict, HttpOnly cookie, repeated in a hidden field. A request already
 * holding a well-formed token keeps it (several tabs stay valid); otherwise a new one is set.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, cookies: CookiePolicy): string {
    const held = request.cookies[cookies.csrfName];
    if (held !== undefined && TOKEN_SHAPE.test(held)) return held;
    const token = randomToken();
    reply.setCookie(cookies.csrfName, token, { httpOnly: true, sameSite: 'strict', secure: cookies.secure, path: '/' });
    return token;
}

/**
 * Whether a form submission comes from this server's page: an Origin header, when sent, must be
 * PUBLIC_URL's origin, and the hidden `csrf` field must equal the CSRF cookie (compared in
 * constant time). A cross-site form can neither read the cookie nor send a same-origin Origin.
 */
export function formIsSameSite(request: FastifyRequest, cookies: CookiePolicy, field: unknown): boolean {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== cookies.origin) return false;
    const held = request.cookies[cookies.csrfName];
    return typeof field === 'string' && held !== undefined && TOKEN_SHAPE.test(held) && sameSecret(held, field);
}

/** Sets the console-session cookie (spec Authentication 1): HttpOnly, SameSite=Lax, Path=/, Secure on https. */
export function setSessionCookie(reply: FastifyReply, cookies: CookiePolicy, value: string, maxAge: number): void {
    reply.setCookie(cookies.sessionName, value, { httpOnly: true, sameSite: 'lax', secure: cookies.secure, path: '/', maxAge });
}

export function clearSessionCookie(reply: FastifyReply, cookies: CookiePolicy): void {
    reply.clearCookie(cookies.sessionName, { httpOnly: true, sameSite: 'lax', secure: cookies.secure, path: '/' });
}
