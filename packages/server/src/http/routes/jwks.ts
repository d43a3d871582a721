import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { notFound } from '../../errors/app-error.js';
import { findRealmByIdOrName } from '../../storage/realms.js';
import type { KeyStore } from '../../keys/store.js';
import { isUuid } from '@realmgate/core';

/**
 * JWKS may be cached briefly by verifiers (jose's remote JWK set, server adapters in local mode),
 * but not for long: a disabled key must stop verifying soon after (spec States).
 */
const CACHE_CONTROL = 'public, max-age=60';

/** The realm of a protocol route, by id or by name (API.md §4); unknown → 404. */
async function realmIdOf(db: Kysely<Database>, value: string): Promise<string> {
    const realm = await findRealmByIdOrName(db, value);
    if (!realm) throw notFound('realm');
    return realm.id;
}

/**
 * `GET /realms/:realm/jwks` and `/jwks/:kid` (API.md §4, spec Endpoints): public keys only, no
 * authentication, bare RFC 7517 shapes (a JWK Set, a JWK) rather than the resource envelope.
 */
const realmParams = Type.Object({ realmId: Type.String({ description: 'The realm, by id or name.' }) });

export function registerJwksRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; keys: KeyStore }): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get('/realms/:realmId/jwks', contract({
        auth: 'none', tags: ['oauth2'], summary: 'The realm\'s public keys (RFC 7517 JWK Set)', params: realmParams,
        response: { 200: ProtocolObject('The JWK Set.', { keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
    }), async (request, reply) => {
        const realmId = await realmIdOf(deps.db, request.params.realmId);
        const jwks = await deps.keys.publicJwks(deps.db, realmId);
        return reply.header('cache-control', CACHE_CONTROL).send(jwks);
    });
    routes.get('/realms/:realmId/jwks/:kid', contract({
        auth: 'none', tags: ['oauth2'], summary: 'One public key (RFC 7517 JWK)',
        params: Type.Object({ ...realmParams.properties, kid: Type.String({ description: 'The key id, a UUID.' }) }),
        response: { 200: ProtocolObject('The JWK.', { kid: Type.String() }) },
    }), async (request, reply) => {
        const realmId = await realmIdOf(deps.db, request.params.realmId);
        // spec Authentication rule 4: a kid is a UUID; anything else names no key
        const jwk = isUuid(request.params.kid) ? await deps.keys.publicJwk(deps.db, realmId, request.params.kid.toLowerCase()) : undefined;
        if (!jwk) throw notFound('key');
        return reply.header('cache-control', CACHE_CONTROL).send(jwk);
    });
}
