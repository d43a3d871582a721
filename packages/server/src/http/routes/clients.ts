import { Type, type Static } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, ReadQuery, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
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
    const base = `${prefix}/${definition.spec.collection}`;
    const tags = [definition.spec.collection];
    const record = recordSchema(definition);
    const mountParams = prefix ? { params: idParams(prefix, []) } : {};
    const rotated = Type.Object({ data: record, meta: Type.Object({ secret: Type.String({ description: 'The new plaintext secret, answered once.' }) }) }, {
        description: 'The client and its new secret.',
    });
    const rotation = (summary: string, params: ReturnType<typeof idParams> | undefined) => ({
        ...contract({ auth: 'required', tags, summary, ...(params ? { params } : {}), body: RotationBody, response: { 200: rotated }, errors: [409] }),
        preValidation: emptyBodyAsObject,
    });

    // reading oneself needs no client_read grant (the caller proved it is this client); the
    // secret follows the usual rule, so fields=+secret shows a client its own secret
    app.get(`${base}/@me`, contract({
        auth: 'required', tags, summary: 'The calling client', ...mountParams, querystring: ReadQuery,
        response: { 200: singleEnvelope(record, 'The caller\'s own client record.') },
    }), async (request) => {
        const ctx = request.context;
        return { data: await readCaller(deps, definition, ctx, 'client', request.query as Record<string, unknown>), meta: {} };
    });
    app.post<{ Params: { id: string }; Body: RotationBody }>(`${base}/:id/secret`, rotation('Rotate a client\'s secret', idParams(prefix)), async (request) => {
        const ctx = request.context;
        return rotateSecret(deps, definition, ctx, request.params.id, request.body);
    });
    app.post<{ Body: RotationBody }>(`${base}/@me/secret`, rotation('Rotate the calling client\'s secret', prefix ? idParams(prefix, []) : undefined), async (request) => {
        const ctx = request.context;
        return rotateOwnSecret(deps, definition, ctx, request.body);
    });
}
