import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, ReadQuery, readSchema, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import { readCaller } from '../../domains/identity/caller.js';
import { changeOwnPassword, type OwnPasswordChange } from '../../domains/users/own-password.js';
import type { RouteDeps } from './resource.js';
import type { AccountService } from '../../domains/account/service.js';

/** Bounds of the user definition's password member (domains/users/definition.ts). */
const OwnPasswordBody = Type.Object({
    currentPassword: Type.String({ minLength: 1, maxLength: 512, description: 'The password the user has now (OWASP ASVS 5.0 §6.2.3).' }),
    password: Type.String({ minLength: 5, maxLength: 512, description: 'The new password.' }),
}, { additionalProperties: false });

const VerificationSent = Type.Object({
    data: Type.Object({ email: Type.String(), emailVerificationRequired: Type.Boolean() }),
    meta: Type.Object({}),
}, { description: 'The link is mailed to the address; it verifies it once followed (POST /users/activate).' });

/** `GET /users/@me`: the caller's own record (API.md §1); `POST /users/@me/password` (API.md §7); `POST /users/@me/verification`. */
export function registerUserRoutes(app: FastifyInstance, deps: RouteDeps & { account: AccountService }, definition: ResourceDefinition, prefix: string): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get(`${prefix}/${definition.spec.collection}/@me`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'The calling user', ...(prefix ? { params: idParams(prefix, []) } : {}),
        querystring: ReadQuery, response: { 200: singleEnvelope(readSchema(definition), 'The caller\'s own user record.') },
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
    routes.post(`${prefix}/${definition.spec.collection}/@me/verification`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'Mail an activation link to the calling user\'s own unverified address',
        description: 'After a self-service email change (which clears emailVerified), or again. `emailVerificationRequired`: the realm lets '
            + 'no one with an unverified address sign in. An address verified already, or none, answers 400. Without SMTP_URL the server answers 503 `mail_unavailable`. '
            + 'Within a minute of the last activation mail to the address (or past five in an hour) it answers 429 with Retry-After.',
        ...(prefix ? { params: idParams(prefix, []) } : {}),
        response: { 202: VerificationSent }, errors: [503],
    }), async (request, reply) => {
        const caller = await readCaller(deps, definition, request.context, 'user', { fields: 'id' });
        return reply.status(202).send({ data: await deps.account.sendVerification(String(caller.id)), meta: {} });
    });
}
