import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, listEnvelope, listQuery, ReadQuery, readSchema, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import { bodySchemas } from '../../domains/resource/body-schema.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import type { ResourceDeps } from '../../domains/resource/deps.js';
import { upsertEntity } from '../../domains/resource/upsert.js';
import { listEntities, readEntity } from '../../domains/resource/read.js';
import { describeResource } from '../../domains/resource/describe.js';
import { STATISTIC_COLLECTIONS, statsOf } from '../../domains/event-log/stats.js';
import { StatsQuery, statsEnvelope } from '../contracts/stats-schemas.js';
import { createEntity, deleteEntity, updateEntity } from '../../domains/resource/write.js';

/** the resource engine's deps, and whether the `@schema` facet is served (QUERY_SCHEMA_DISCOVERY_ENABLED) */
export type RouteDeps = ResourceDeps & { config: { querySchemaDiscoveryEnabled: boolean } };

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
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const { spec, hooks } = definition;
    const schemas = bodySchemas(spec, definition.fields, hooks.extraBody, hooks.openBody);
    const preValidation = hooks.strippedBody?.length ? stripper(hooks.strippedBody) : undefined;
    // PUT /<coll>/:name carries the name in the path, so the body may omit it
    const putSchema = { ...schemas.create, required: (schemas.create.required ?? []).filter((name: string) => name !== 'name') };
    const prefixes = spec.realm === 'required' || spec.realm === 'nullable' ? ['', '/realms/:realmId'] : [''];

    const writes = new Set(definition.writes ?? ['create', 'update', 'delete']);
    // the contracts, generated from the field specs (API.md §1 envelopes)
    // writes answer the whole record; reads (list, read, the delete's answer) take `fields=`
    const record = recordSchema(definition);
    const read = readSchema(definition);
    const tags = [spec.collection];
    const one = (description: string) => singleEnvelope(record, description);
    const writeBody = <T extends object>(options: T) => (preValidation ? { ...options, preValidation } : options);

    for (const prefix of prefixes) {
        const base = `${prefix}/${spec.collection}`;
        const params = idParams(prefix);
        const mountParams = prefix ? idParams(prefix, []) : undefined;
        extraRoutes?.(prefix);
        routes.get(base, contract({
            auth: 'required', tags, summary: `List ${spec.collection}`, ...(mountParams ? { params: mountParams } : {}),
            querystring: listQuery(definition), response: { 200: listEnvelope(read, 'The page of rows the caller may read.') },
        }), async (request) => {
            const ctx = request.context;
            return listEntities(deps, definition, ctx, request.query as Record<string, unknown>);
        });
        // QUERY_SCHEMA_DISCOVERY_ENABLED=false: the path answers the ordinary 404 of an
        // unknown route; held by a hidden route, as `/:id` would otherwise read `@schema` as an id (400)
        if (!deps.config.querySchemaDiscoveryEnabled) {
            app.get(`${base}/@schema`, { schema: { hide: true }, config: { auth: 'none' } }, (_request, reply) => reply.callNotFound());
        } else routes.get(`${base}/@schema`, contract({
            auth: 'required', tags, summary: `The query vocabulary of ${spec.collection}`, ...(mountParams ? { params: mountParams } : {}),
            response: { 200: singleEnvelope(Type.Object({}, { additionalProperties: true }), 'Fields, operators, relations and pagination (spec "Schema and statistics facets").') },
        }), async () => {
            return { data: describeResource(definition), meta: {} };
        });
        if (STATISTIC_COLLECTIONS.has(spec.collection)) routes.get(`${base}/@stats`, contract({
            auth: 'required', tags, summary: `Counts of ${spec.collection} per hour, day or month`,
            description: spec.collection === 'events'
                ? 'Entries of the event log per bucket of createdAt; groups and filters: realmId, scope, name, refType.'
                : `The ${spec.entity}.created entries of the event log per bucket of createdAt; group and filter: realmId.`,
            ...(mountParams ? { params: mountParams } : {}),
            querystring: StatsQuery, response: { 200: statsEnvelope },
        }), async (request) => {
            return statsOf(deps, definition, request.context, request.query as Record<string, unknown>);
        });
        routes.get(`${base}/:id`, contract({
            auth: 'required', tags, summary: `Read one of ${spec.collection}`, params, querystring: ReadQuery, response: { 200: singleEnvelope(read, 'The row.') },
        }), async (request) => {
            const ctx = request.context;
            return { data: await readEntity(deps, definition, ctx, request.params.id, request.query as Record<string, unknown>), meta: {} };
        });
        if (writes.has('create')) routes.post(base, writeBody(contract({
            auth: 'required', tags, summary: `Create one of ${spec.collection}`, ...(mountParams ? { params: mountParams } : {}),
            body: schemas.create, response: { 201: one('The created row.') }, errors: [409],
        })), async (request, reply: FastifyReply) => {
            const ctx = request.context;
            const data = await createEntity(deps, definition, ctx, request.body as Record<string, unknown>);
            return reply.status(201).send({ data, meta: {} });
        });
        if (writes.has('update')) routes.post(`${base}/:id`, writeBody(contract({
            auth: 'required', tags, summary: `Update one of ${spec.collection}`, params, body: schemas.update, response: { 200: one('The updated row.') }, errors: [409],
        })), async (request) => {
            const ctx = request.context;
            return { data: await updateEntity(deps, definition, ctx, request.params.id, request.body as Record<string, unknown>), meta: {} };
        });
        if (writes.has('create') && writes.has('update')) routes.put(`${base}/:id`, writeBody(contract({
            auth: 'required', tags, summary: `Create or update one of ${spec.collection}`, params, body: putSchema,
            response: { 200: one('The updated row.'), 201: one('The created row.') }, errors: [409],
        })), async (request, reply) => {
            const ctx = request.context;
            const { created, data } = await upsertEntity(deps, definition, ctx, request.params.id, request.body as Record<string, unknown>);
            if (!created) return { data, meta: {} };
            return reply.status(201).send({ data, meta: {} });
        });
        if (writes.has('delete')) routes.delete(`${base}/:id`, contract({
            auth: 'required', tags, summary: `Delete one of ${spec.collection}`, params, querystring: ReadQuery,
            response: { 200: singleEnvelope(read, 'The deleted row.') }, errors: [409],
        }), async (request) => {
            const ctx = request.context;
            return { data: await deleteEntity(deps, definition, ctx, request.params.id, request.query as Record<string, unknown>), meta: {} };
        });
    }
}
