import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import type { RouteDeps } from './resource.js';
import { INITIAL_ACCESS_TOKEN_LIMITS } from '../../domains/initial-access-tokens/definition.js';
import { createInitialAccessToken } from '../../domains/initial-access-tokens/service.js';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const { count, expiresIn } = INITIAL_ACCESS_TOKEN_LIMITS;

const CreateBody = Type.Object({
    realmId: Type.Optional(Type.String({ pattern: UUID, description: 'The realm whose registration endpoint the token opens; the mount\'s or the caller\'s by default.' })),
    expiresIn: Type.Optional(Type.Integer({ minimum: expiresIn.minimum, maximum: expiresIn.maximum, description: `Lifetime in seconds (default ${expiresIn.default}).` })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: count.maximum, description: `How many registrations it authorizes (default ${count.default}).` })),
}, { additionalProperties: false, title: 'initial_access_token.create' });

/**
 * `POST /initial-access-tokens` (and under `/realms/:realmId`): the one write of the collection
 * beside DELETE, because its answer carries the token, which the generic create cannot.
 */
export function registerInitialAccessTokenRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, prefix: string): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const record = recordSchema(definition);
    const created = Type.Object({
        ...record.properties,
        token: Type.String({ description: 'The initial access token (RFC 7591 §3), a Bearer for the registration endpoint; answered this once.' }),
    }, { additionalProperties: true, title: 'initial_access_token.created' });
    routes.post(`${prefix}/${definition.spec.collection}`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'Create an initial access token for dynamic client registration',
        description: 'Needs initial_access_token_create in the realm. Only the token\'s digest is stored: `data.token` is shown once.',
        ...(prefix ? { params: idParams(prefix, []) } : {}),
        body: CreateBody, response: { 201: singleEnvelope(created, 'The token\'s record and the token.') },
    }), async (request, reply) => {
        const data = await createInitialAccessToken(deps, definition, request.context, request.body);
        return reply.status(201).send({ data, meta: {} });
    });
}
