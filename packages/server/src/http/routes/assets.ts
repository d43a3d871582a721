import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import type { AuthConsole } from '../../views/contract.js';
import { FORM_POST_SCRIPT } from '../../views/assets.js';

/** Static assets may be cached a day; they change only with a release or a substituted console. */
const CACHE_CONTROL = 'public, max-age=86400';

/**
 * `GET /assets/auth.css` and `GET /assets/form-post.js` (issue 13 item 1): the auth pages carry no
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
}
