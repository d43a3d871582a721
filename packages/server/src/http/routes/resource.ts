import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contextOf, type ContextDeps } from '../request-context.js';
import { bodySchemas } from '../../domains/resource/body-schema.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import type { ResourceDeps } from '../../domains/resource/deps.js';
import { upsertEntity } from '../../domains/resource/upsert.js';
import { listEntities, readEntity } from '../../domains/resource/read.js';
import { describeResource } from '../../domains/resource/describe.js';
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

/**
 * Mount one resource at /<collection> and, when realm-bound, at /realms/:realmId/<collection>;
 * `extraRoutes` mounts the resource's own routes (`@me`, secret rotation…) under each prefix.
 */
export function registerResourceRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, extraRoutes?: (prefix: string) => void): void {
    const { spec, hooks } = definition;
    const schemas = bodySchemas(spec, definition.fields, hooks.extraBody, hooks.openBody);
    const preValidation = hooks.strippedBody?.length ? stripper(hooks.strippedBody) : undefined;
    // PUT /<coll>/:name carries the name in the path, so the body may omit it
    const putSchema = { ...schemas.create, required: (schemas.create.required ?? []).filter((name: string) => name !== 'name') };
    const prefixes = spec.realm === 'required' || spec.realm === 'nullable' ? ['', '/realms/:realmId'] : [''];

    const writes = new Set(definition.writes ?? ['create', 'update', 'delete']);

    for (const prefix of prefixes) {
        const base = `${prefix}/${spec.collection}`;
        extraRoutes?.(prefix);
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
            const { created, data } = await upsertEntity(deps, definition, ctx, request.params.id, request.body as Record<string, unknown>);
            if (!created) return { data, meta: {} };
            return reply.status(201).send({ data, meta: {} });
        });
        if (writes.has('delete')) app.delete<{ Params: Params }>(`${base}/:id`, async (request) => {
            const ctx = await contextOf(deps, request);
            return { data: await deleteEntity(deps, definition, ctx, request.params.id, request.query as Record<string, unknown>), meta: {} };
        });
    }
}
