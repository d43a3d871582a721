import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import { idParams } from '../contracts/resource-schemas.js';
import { parseBatchCheckBody, runBatchCheck } from '../../authz/batch-check.js';
import { assertCheckable } from '../../authz/check-reach.js';
import { checkPermission, checkPolicy, parseSubjectCheckBody, resolveSubject } from '../../authz/subject-check.js';
import type { AppDeps } from '../deps.js';

/** Spec "Authorization routes": a private verdict a browser may keep only while it revalidates. */
function cacheControl(maxAge: number | null): string {
    return maxAge === null ? 'private, no-cache' : `private, no-cache, max-age=${maxAge}`;
}

/**
 * POST /authorization/check (batch check), POST /permissions/:id/check and POST /policies/:id/check.
 * All three work without credentials: an identity-less caller is answered as such (batch-check
 * rule 1), and the check routes then evaluate nobody (or refuse another subject with 403); a
 * per-id check names only a row the caller may read (authz/check-reach.ts).
 * The check paths have one more segment than the resource routes' POST /permissions/:id (update),
 * so the router keeps them apart.
 */
export function registerAuthorizationCheckRoutes(app: FastifyInstance, deps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.post('/authorization/check', contract({
        auth: 'optional', tags: ['authorization'], summary: 'Batch check (spec "Authorization routes")',
        body: Type.Unknown({ description: 'The batch-check request; authz/batch-check.ts parses it.' }),
        response: { 200: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'One verdict per entry.' }) },
    }), async (request, reply) => {
        const body = parseBatchCheckBody(request.body);
        const context = request.context;
        const answer = runBatchCheck(await context.authorizer(), body);
        return reply.header('Cache-Control', cacheControl(answer.maxAge)).send(answer.entries);
    });

    for (const [collection, check] of [['permissions', checkPermission], ['policies', checkPolicy]] as const) {
        routes.post(`/${collection}/:id/check`, contract({
            auth: 'optional', tags: ['authorization'], summary: `Check a ${collection === 'permissions' ? 'permission' : 'policy'} for a subject`,
            params: idParams(''), body: Type.Unknown({ description: 'The subject check request; authz/subject-check.ts parses it.' }),
            response: { 200: ProtocolObject('The verdict `{ status, … }`.', { status: Type.String() }) },
        }), async (request, reply) => {
            const body = parseSubjectCheckBody(request.body);
            const context = request.context;
            // another realm's row outside the caller's read reach is 404, as an unknown id
            await assertCheckable(deps, context, collection, request.params.id);
            const subject = await resolveSubject(deps, context, body.identity);
            const result = await check(deps, request.params.id, subject, body);
            return reply.header('Cache-Control', 'private, no-cache').send(result);
        });
    }
}
