import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { discoveryDocument } from '../../oauth2/discovery.js';
import { MASTER_REALM } from '@realmgate/core';
import { notFound } from '../../errors/app-error.js';
import { findRealmByIdOrName, type RealmRef } from '../../storage/realms.js';
import { PAGE_LOCALES } from '../../views/locale.js';

/** Verifiers may cache the document briefly, like the JWKS it points to. */
const CACHE_CONTROL = 'public, max-age=60';

/** The realm of a discovery route, by id or by name (API.md §4); unknown → 404. */
async function findRealm(db: Kysely<Database>, value: string): Promise<RealmRef> {
    const realm = await findRealmByIdOrName(db, value);
    if (!realm) throw notFound('realm');
    return realm;
}

/**
 * `GET /realms/:realm/.well-known/openid-configuration` and the master realm's at
 * `GET /.well-known/openid-configuration` (API.md §4; OpenID Connect Discovery 1.0 §4): no
 * authentication, the bare metadata object rather than the resource envelope.
 */
export function registerDiscoveryRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; publicUrl: string; mtlsPublicUrl: string | undefined }): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get('/realms/:realm/.well-known/openid-configuration', contract({
        auth: 'none', tags: ['oauth2'], summary: 'OpenID Connect discovery (OpenID Connect Discovery 1.0 §4)', params: Type.Object({ realm: Type.String({ description: 'The realm, by id or name.' }) }),
        response: { 200: ProtocolObject('The provider metadata.', { issuer: Type.String() }) },
    }), async (request, reply) => {
        const realm = await findRealm(deps.db, request.params.realm);
        return reply.header('cache-control', CACHE_CONTROL).send(await discoveryDocument(deps.db, deps.publicUrl, realm, { uiLocales: PAGE_LOCALES }, deps.mtlsPublicUrl));
    });
    routes.get('/.well-known/openid-configuration', contract({
        auth: 'none', tags: ['oauth2'], summary: 'OpenID Connect discovery of the master realm (OpenID Connect Discovery 1.0 §4)',
        response: { 200: ProtocolObject('The provider metadata.', { issuer: Type.String() }) },
    }), async (_request, reply) => {
        const realm = await findRealm(deps.db, MASTER_REALM);
        return reply.header('cache-control', CACHE_CONTROL).send(await discoveryDocument(deps.db, deps.publicUrl, realm, { uiLocales: PAGE_LOCALES }, deps.mtlsPublicUrl));
    });
}
