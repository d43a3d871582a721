import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, ReadQuery, readSchema, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import type { RouteDeps } from './resource.js';
import { readCaller } from '../../domains/identity/caller.js';
import { rotateOwnSecret, rotateSecret } from '../../domains/clients/rotate-secret.js';
import { SECRET_MAX_LENGTH, SECRET_MODES, type SecretStore } from '../../domains/clients/secret.js';

const RotationBody = Type.Object({
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: SECRET_MAX_LENGTH })),
    mode: Type.Optional(Type.Union(SECRET_MODES.map((mode) => Type.Literal(mode)))),
}, { additionalProperties: false, title: 'client.secret' });
type RotationBody = Static<typeof RotationBody>;

export interface ClientRouteDeps extends RouteDeps {
    store: SecretStore;
}

/** A rotation may be sent without a body: everything in it is optional. */
async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
    if (request.body === undefined || request.body === null) request.body = {};
}

/** `GET /clients/@me`, `POST /clients/:id/secret` and `POST /clients/@me/secret` (API.md §1). */
export function registerClientRoutes(app: FastifyInstance, deps: ClientRouteDeps, definition: ResourceDefinition, prefix: string): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = `${prefix}/${definition.spec.collection}`;
    const tags = [definition.spec.collection];
    const record = recordSchema(definition);
    const mountParams = prefix ? { params: idParams(prefix, []) } : {};
    const rotated = Type.Object({ data: record, meta: Type.Object({ secret: Type.String({ description: 'The new plaintext secret, answered once.' }) }) }, {
        description: 'The client and its new secret.',
    });
    const rotation = { auth: 'required', tags, body: RotationBody, response: { 200: rotated }, errors: [409] } as const;

    // reading oneself needs no client_read grant (the caller proved it is this client); the
    // secret follows the usual rule, so fields=+secret shows a client its own secret
    routes.get(`${base}/@me`, contract({
        auth: 'required', tags, summary: 'The calling client', ...mountParams, querystring: ReadQuery,
        response: { 200: singleEnvelope(readSchema(definition), 'The caller\'s own client record.') },
    }), async (request) => {
        const ctx = request.context;
        return { data: await readCaller(deps, definition, ctx, 'client', request.query as Record<string, unknown>), meta: {} };
    });
    routes.post(`${base}/:id/secret`, {
        ...contract({ ...rotation, summary: 'Rotate a client\'s secret', params: idParams(prefix) }), preValidation: emptyBodyAsObject,
    }, async (request) => {
        const ctx = request.context;
        return rotateSecret(deps, definition, ctx, request.params.id, request.body);
    });
    routes.post(`${base}/@me/secret`, {
        ...contract({ ...rotation, summary: 'Rotate the calling client\'s secret', ...mountParams }), preValidation: emptyBodyAsObject,
    }, async (request) => {
        const ctx = request.context;
        return rotateOwnSecret(deps, definition, ctx, request.body);
    });
}
