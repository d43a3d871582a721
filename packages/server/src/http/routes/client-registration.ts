import { ErrorCode } from '@realmgate/core';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contract, EmptyAnswer, ProtocolObject } from '../contracts/route-contract.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import {
    deleteRegistration, readRegistration, registerClient, updateRegistration, type RegistrationCall, type RegistrationDeps,
} from '../../domains/client-registration/service.js';
import { protocolErrorHandler } from './token.js';

/** RFC 7591 §3.2.1 and RFC 7592 §3: the answers carry credentials, which no cache may keep. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const tags = ['oauth2'];
/** RFC 7591 §2: client metadata, a JSON object; members the server does not know are ignored. */
const Metadata = Type.Object({}, { additionalProperties: true, description: 'Client metadata (RFC 7591 §2, OpenID Connect Registration §2).' });
const ClientInformation = (description: string) => ProtocolObject(description, {
    client_id: Type.String(), client_id_issued_at: Type.Integer(), registration_client_uri: Type.String(),
    client_secret: Type.Optional(Type.String()), client_secret_expires_at: Type.Optional(Type.Integer()),
    registration_access_token: Type.Optional(Type.String()),
});
const RealmParams = Type.Object({ realmId: Type.String({ description: 'The realm, by id or name.' }) });
const ClientParams = Type.Object({ realmId: RealmParams.properties.realmId, clientId: Type.String({ description: 'The registered client\'s client_id.' }) });
const MANAGEMENT = 'Authorization: Bearer with the registration access token of this client (RFC 7592 §1.1); another token answers 401 invalid_token.';
const SWITCH = ' 403 access_denied while the realm\'s `dynamicRegistrationEnabled` is false.';

const callOf = (request: FastifyRequest, realm: string): RegistrationCall => ({
    realm, authorization: request.headers.authorization, request: { ip: request.ip, method: request.method, path: request.url.split('?')[0] ?? request.url },
});

/**
 * Dynamic client registration (RFC 7591 §3) at `POST /realms/:realmId/register-client` and the
 * management of a registration (RFC 7592 §2) at its `registration_client_uri`. The routes
 * authenticate their Bearer themselves (an initial or a registration access token, not a JWT), so
 * they declare `auth: 'none'`; errors carry the RFCs' `error` codes.
 */
export function registerClientRegistrationRoutes(app: FastifyInstance, deps: Omit<RegistrationDeps, 'clients'>, clients: ResourceDefinition): void {
    const registration: RegistrationDeps = { ...deps, clients };
    const base = '/realms/:realmId/register-client';
    void app.register(async (scope) => {
        scope.setErrorHandler(protocolErrorHandler([ErrorCode.INVALID_REDIRECT_URI, ErrorCode.INVALID_CLIENT_METADATA, ErrorCode.INVALID_TOKEN]));
        const routes = scope.withTypeProvider<TypeBoxTypeProvider>();
        routes.post(base, contract({
            auth: 'none', oauth: true, tags, summary: 'Register a client (RFC 7591)', params: RealmParams, body: Metadata, errors: [401, 403],
            description: 'Authorization: Bearer with an initial access token of the realm (`POST /initial-access-tokens`); each registration spends one use.' + SWITCH,
            response: { 201: ClientInformation('The client information response (RFC 7591 §3.2.1).') },
        }), async (request, reply) => {
            const answer = await registerClient(registration, callOf(request, request.params.realmId), request.body as Record<string, unknown>);
            return reply.status(201).headers(NO_STORE).send(answer);
        });
        routes.get(`${base}/:clientId`, contract({
            auth: 'none', oauth: true, tags, summary: 'Read a registration (RFC 7592 §2.1)', params: ClientParams, errors: [401, 403],
            description: MANAGEMENT + SWITCH, response: { 200: ClientInformation('The client information response (RFC 7592 §3).') },
        }), async (request, reply) => {
            return reply.headers(NO_STORE).send(await readRegistration(registration, callOf(request, request.params.realmId), request.params.clientId));
        });
        routes.put(`${base}/:clientId`, contract({
            auth: 'none', oauth: true, tags, summary: 'Replace a registration\'s metadata (RFC 7592 §2.2)', params: ClientParams, body: Metadata, errors: [401, 403],
            description: `${MANAGEMENT} Omitted members are cleared; the answer carries a new registration access token and the old one stops working.${SWITCH}`,
            response: { 200: ClientInformation('The client information response (RFC 7592 §3).') },
        }), async (request, reply) => {
            const answer = await updateRegistration(registration, callOf(request, request.params.realmId), request.params.clientId, request.body as Record<string, unknown>);
            return reply.headers(NO_STORE).send(answer);
        });
        routes.delete(`${base}/:clientId`, contract({
            auth: 'none', oauth: true, tags, summary: 'Delete a registration and its client (RFC 7592 §2.3)', params: ClientParams, errors: [401, 403],
            description: MANAGEMENT + SWITCH, response: { 204: EmptyAnswer('The client is deleted.') },
        }), async (request, reply) => {
            await deleteRegistration(registration, callOf(request, request.params.realmId), request.params.clientId);
            return reply.status(204).headers(NO_STORE).send();
        });
    });
}
