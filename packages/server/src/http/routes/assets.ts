import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import type { AuthConsole } from '../../views/contract.js';
import { FORM_POST_SCRIPT, PASSKEY_SCRIPT } from '../../views/assets.js';

/** Static assets may be cached a day; they change only with a release or a substituted console. */
const CACHE_CONTROL = 'public, max-age=86400';

/**
 * @simplewebauthn/browser's self-contained bundle (its global `SimpleWebAuthnBrowser`), served from
 * the installed package — never a CDN: the pages' CSP allows scripts of this origin only. The
 * package exports only its entry points, so the bundle is found beside the resolved CommonJS entry.
 */
function webauthnBrowserBundle(): string {
    const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
    return readFileSync(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
}

/**
 * `GET /assets/auth.css`, `GET /assets/form-post.js` (the built-in auth pages) and the passkey scripts (API.md §8): the auth pages carry no
 * inline style or script (their CSP allows only 'self'), so both are served from here.
 */
export function registerAssetRoutes(app: FastifyInstance, views: AuthConsole): void {
    app.get('/assets/auth.css', contract({
        auth: 'none', tags: ['auth pages'], summary: 'The stylesheet of the auth pages',
        response: { 200: Type.String({ description: 'text/css' }) },
    }), async (_request, reply) => reply.headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': CACHE_CONTROL }).send(views.stylesheet));
    app.get('/assets/form-post.js', contract({
        auth: 'none', tags: ['auth pages'], summary: 'The auto-submit script of the form_post response page',
        response: { 200: Type.String({ description: 'text/javascript' }) },
    }), async (_request, reply) => reply.headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': CACHE_CONTROL }).send(FORM_POST_SCRIPT));
    // API.md §8 passkeys: the ceremony script of the sign-in pages and the WebAuthn browser library it uses
    app.get('/assets/passkey.js', contract({
        auth: 'none', tags: ['auth pages'], summary: 'The passkey script of the sign-in pages (WebAuthn ceremonies, passkey autofill)',
        response: { 200: Type.String({ description: 'text/javascript' }) },
    }), async (_request, reply) => reply.headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': CACHE_CONTROL }).send(PASSKEY_SCRIPT));
    const bundle = webauthnBrowserBundle();
    app.get('/assets/webauthn-browser.js', contract({
        auth: 'none', tags: ['auth pages'], summary: 'The WebAuthn browser library (@simplewebauthn/browser) the passkey script uses',
        response: { 200: Type.String({ description: 'text/javascript' }) },
    }), async (_request, reply) => reply.headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': CACHE_CONTROL }).send(bundle));
}
