import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contextOf, type ContextDeps } from '../request-context.js';
import { bodySchemas } from '../../domains/resource/body-schema.js';
import type { ResourceDefinition, ResourceDeps } from '../../domains/resource/context.js';
import { listEntities, readEntity } from '../../domains/resource/read.js';
import { describeResource } from '../../domains/resource/describe.js';
import { isUuid } from '@realmgate/core';
import { findRow } from '../../domains/resource/resolve.js';
import { badRequest } from '../../errors/app-error.js';
import { createEntity, deleteEntity, updateEntity } from '../../domains/resource/write.js';

export type RouteDeps = ResourceDeps & ContextDeps;

type Params = { id: string; realmId?: string };

/** Drop members the spec says are stripped silently (client scope/rootUrl) before validation. */
function stripper(names: readonly string[]) {
    return async (request: FastifyRequest) => {
        const body = request.body as Record<string, unknown> | undefined;
        if (body && typeof body === 'object') for (const name of names) delete body[name];
    };
}

/** Mount one resource at /<collection> and, when realm-bound, at /realms/:realmId/<collection>. */
export function registerResourceRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition): void {
    const { spec, hooks } = definition;
    const schemas = bodySchemas(spec, definition.fields, hooks.extraBody, hooks.openBody);
    const preValidation = hooks.strippedBody?.length ? stripper(hooks.strippedBody) : undefined;
    // PUT /<coll>/:name carries the name in the path, so the body may omit it
    const putSchema = { ...schemas.create, required: (schemas.create.required ?? []).filter((name: string) => name !== 'name') };
    const prefixes = spec.realm === 'required' || spec.realm === 'nullable' ? ['', '/realms/:realmId'] : [''];

    const writes = new Set(definition.writes ?? ['create', 'update', 'delete']);

    for (const prefix of prefixes) {
        const base = `${prefix}/${spec.collection}`;
        definition.routes?.(app, prefix);
        app.get(base, async (request) => {
            const ctx = await contextOf(deps, request);
            return listEntities(deps, definition, ctx, request.query as Record<string, unknown>);
        });
        app.get(`${base}/@schema`, async (request) => {
            await contextOf(deps, request);
            return { data: describeResource(definition), meta: {} };
        });
        app.get<{ Params: Params }>(`${base}/:id`, async (request) => {
            const ctx = await contextOf(deps, request);
            return { data: await readEntity(deps, definition, ctx, request.params.id, request.query as Record<string, unknown>), meta: {} };
        });
        if (writes.has('create')) app.post(base, { schema: { body: schemas.create }, ...(preValidation ? { preValidation } : {}) }, async (request, reply: FastifyReply) => {
            const ctx = await contextOf(deps, request);
            const data = await createEntity(deps, definition, ctx, request.body as Record<string, unknown>);
            return reply.status(201).send({ data, meta: {} });
        });
        if (writes.has('update')) app.post<{ Params: Params }>(`${base}/:id`, { schema: { body: schemas.update }, ...(preValidation ? { preValidation } : {}) }, async (request) => {
            const ctx = await contextOf(deps, request);
            return { data: await updateEntity(deps, definition, ctx, request.params.id, request.body as Record<string, unknown>), meta: {} };
        });
        if (writes.has('create') && writes.has('update')) app.put<{ Params: Params }>(`${base}/:id`, { schema: { body: putSchema }, ...(preValidation ? { preValidation } : {}) }, async (request, reply) => {
            const ctx = await contextOf(deps, request);
            const body = request.body as Record<string, unknown>;
            const existing = await findRow(deps.db as never, spec, ctx, request.params.id);
            if (existing) {
                return { data: await updateEntity(deps, definition, ctx, existing.id as string, body), meta: {} };
            }
            // upsert: an id key becomes the new row's id; a name key its name (API.md §1)
            const isId = isUuid(request.params.id);
            if (!isId && body.name !== undefined && body.name !== request.params.id) {
                throw badRequest('The body name differs from the name in the path.', [{ path: ['name'], code: 'name_mismatch', message: 'must equal the name in the path' }]);
            }
            if (isId && spec.named && body.name === undefined) {
                throw badRequest('A new row needs a name.', [{ path: ['name'], code: 'required', message: "must have required property 'name'" }]);
            }
            const input = isId ? body : { ...body, name: request.params.id };
            const data = await createEntity(deps, definition, ctx, input, isId ? request.params.id.toLowerCase() : undefined);
            return reply.status(201).send({ data, meta: {} });
        });
        if (writes.has('delete')) app.delete<{ Params: Params }>(`${base}/:id`, async (request) => {
            const ctx = await contextOf(deps, request);
            return { data: await deleteEntity(deps, definition, ctx, request.params.id, request.query as Record<string, unknown>), meta: {} };
        });
    }
}
