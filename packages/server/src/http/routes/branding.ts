import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { notFound } from '../../errors/app-error.js';
import { findRealmPrimaryColor } from '../../storage/realms.js';
import { brandingStylesheet } from '../../views/branding.js';
import { ifNoneMatchMatches } from '../conditional.js';
import { contract } from '../contracts/route-contract.js';

/**
 * Revalidated on every use (RFC 9111 §5.2.2.4 no-cache): a colour changed in the realm shows on the
 * next page, while an unchanged one costs a 304 without a body.
 */
const CACHE_CONTROL = 'public, no-cache';

/**
 * `GET /realms/:realm/branding.css`: a branded realm's primary colour for its sign-in pages, as
 * custom properties of a stylesheet of this origin — the pages' CSP (`style-src 'self'`, no inline
 * style) stays the same for every realm. No authentication: the colour is what the realm's public
 * sign-in page shows anyway. A realm without a colour, or no realm, is 404.
 */
export function registerBrandingRoute(app: FastifyInstance, db: Kysely<Database>): void {
    app.withTypeProvider<TypeBoxTypeProvider>().get('/realms/:realm/branding.css', contract({
        auth: 'none', tags: ['auth pages'], summary: 'The stylesheet of a realm\'s primary colour on its sign-in pages',
        description: 'Answers a strong ETag; a request whose If-None-Match names it gets 304 without a body.',
        params: Type.Object({ realm: Type.String({ maxLength: 128, description: 'The realm, by id or name.' }) }),
        response: {
            200: Type.String({ description: 'text/css: `--rg-primary` and `--rg-on-primary` (black or white, by WCAG contrast).' }),
            304: Type.Null({ description: 'Not Modified (RFC 9110 §15.4.5).' }),
        },
        errors: [404],
    }), async (request, reply) => {
        const color = await findRealmPrimaryColor(db, request.params.realm);
        if (!color) throw notFound('realm');
        const css = brandingStylesheet(color);
        const etag = `"${createHash('sha256').update(css).digest('base64url').slice(0, 27)}"`;
        // RFC 9110 §15.4.5: the 304 carries the ETag and Cache-Control the 200 would have carried
        reply.headers({ etag, 'cache-control': CACHE_CONTROL });
        if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
        return reply.type('text/css; charset=utf-8').send(css);
    });
}
