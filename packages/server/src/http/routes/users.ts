import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, ReadQuery, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import { readCaller } from '../../domains/identity/caller.js';
import { changeOwnPassword, type OwnPasswordChange } from '../../domains/users/own-password.js';
import type { RouteDeps } from './resource.js';

/** Bounds of the user definition's password member (domains/users/definition.ts). */
const OwnPasswordBody = Type.Object({
    currentPassword: Type.String({ minLength: 1, maxLength: 512, description: 'The password the user has now (OWASP ASVS 5.0 §6.2.3).' }),
    password: Type.String({ minLength: 5, maxLength: 512, description: 'The new password.' }),
}, { additionalProperties: false });

/** `GET /users/@me`: the caller's own record (API.md §1); `POST /users/@me/password` (API.md §7). */
export function registerUserRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, prefix: string): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get(`${prefix}/${definition.spec.collection}/@me`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'The calling user', ...(prefix ? { params: idParams(prefix, []) } : {}),
        querystring: ReadQuery, response: { 200: singleEnvelope(recordSchema(definition), 'The caller\'s own user record.') },
    }), async (request) => {
        const ctx = request.context;
        return { data: await readCaller(deps, definition, ctx, 'user', request.query as Record<string, unknown>), meta: {} };
    });
    routes.post(`${prefix}/${definition.spec.collection}/@me/password`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'Change the calling user\'s own password',
        description: 'Needs the current password: a wrong one answers 400 invalid_credentials and counts as a failed authentication. '
            + 'The session of the request continues; every other session of the user ends.',
        ...(prefix ? { params: idParams(prefix, []) } : {}),
        body: OwnPasswordBody, response: { 200: singleEnvelope(recordSchema(definition), 'The caller\'s own user record.') },
    }), async (request) => {
        return { data: await changeOwnPassword(deps, definition, request.context, request.body as OwnPasswordChange), meta: {} };
    });
}
