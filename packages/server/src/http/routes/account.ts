import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MASTER_REALM } from '@realmgate/core';
import { Type } from '@sinclair/typebox';
import type { RecoveryRequest } from '../../domains/account/service.js';
import { EMAIL_PATTERN, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domains/users/definition.js';
import { IDENTITY_NAME_PATTERN } from '../../domains/users/identity-rules.js';
import { contract } from '../contracts/route-contract.js';
import { idParams } from '../contracts/resource-schemas.js';
import type { AppDeps } from '../deps.js';

/*
 * The account routes of API.md §7 that need mail (spec States, Authentication 17): POST /register, POST
 * /users/activate, POST /password-forgot, POST /password-reset. Each sits at the root (the master
 * realm, as names resolve there on every other route, spec Authentication 5) and under
 * /realms/:realmId. They take no credentials: the mailed code is the proof.
 */

const TAGS = ['account'];
/** a mailed code: 32 random bytes, base64url (secrets/digests.ts randomToken) */
const Code = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', description: 'The code of the mailed link (its `code` query parameter).' });
const Password = Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, description: 'The new password.' });
const Email = Type.String({ maxLength: 255, pattern: EMAIL_PATTERN, description: 'An email address.' });

const RegisterBody = Type.Object({
    name: Type.String({ minLength: 1, maxLength: 128, pattern: IDENTITY_NAME_PATTERN, description: 'The user name (unique in the realm; never a UUID).' }),
    email: Email,
    password: Password,
}, { additionalProperties: false });

const Registered = Type.Object({
    data: Type.Object({
        id: Type.String({ format: 'uuid' }),
        name: Type.String(),
        realmId: Type.String({ format: 'uuid' }),
        emailVerified: Type.Boolean(),
    }),
    meta: Type.Object({}),
}, { description: 'The user is created (active, address not verified); an activation link is mailed to the address.' });

const ActivateBody = Type.Object({ code: Code }, { additionalProperties: false });
const Activated = Type.Object({
    data: Type.Object({ userId: Type.String({ format: 'uuid' }), emailVerified: Type.Literal(true) }),
    meta: Type.Object({}),
}, { description: 'The address is verified (emailVerified true); the code is used up.' });

const ForgotBody = Type.Union([
    Type.Object({ name: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
    Type.Object({ email: Email }, { additionalProperties: false }),
], { description: 'The user name, or the address, of the account.' });
const FORGOT_MESSAGE = 'If an active account with an address matches, a link to reset its password was mailed to that address.';
const Accepted = Type.Object({ message: Type.Literal(FORGOT_MESSAGE) }, {
    description: 'The same answer whether or not an account matches (spec Endpoints: no account enumeration).',
});

const ResetBody = Type.Object({ code: Code, password: Password }, { additionalProperties: false });
const Reset = Type.Null({ description: 'The password is set; every session of the user has ended.' });

const MAIL_NOTE = ' Without SMTP_URL the server answers 503 `mail_unavailable` naming the setting.';

export function registerAccountRoutes(app: FastifyInstance, deps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const prefix of ['', '/realms/:realmId']) {
        const params = prefix ? { params: idParams(prefix, []) } : {};
        const realmOf = (request: { params: unknown }) => (prefix ? (request.params as { realmId: string }).realmId : MASTER_REALM);

        routes.post(`${prefix}/register`, contract({
            auth: 'none', tags: TAGS, summary: 'Register an account (self-registration)',
            description: 'Open only when the realm\'s `registrationEnabled` is true (403 otherwise). A taken name answers 409.' + MAIL_NOTE,
            ...params, body: RegisterBody, response: { 201: Registered }, errors: [403, 409, 503],
        }), async (request, reply) => {
            const account = await deps.account.register(realmOf(request), request.body);
            return reply.status(201).send({ data: account, meta: {} });
        });

        routes.post(`${prefix}/users/activate`, contract({
            auth: 'none', tags: TAGS, summary: 'Confirm an address with the code of the activation mail',
            description: 'Sets `emailVerified` (spec States). A code that is unknown in this realm, used or expired answers 400 with an issue on `code`.',
            ...params, body: ActivateBody, response: { 200: Activated },
        }), async (request) => {
            const { userId } = await deps.account.activate(realmOf(request), request.body.code);
            return { data: { userId, emailVerified: true as const }, meta: {} };
        });

        routes.post(`${prefix}/password-forgot`, contract({
            auth: 'none', tags: TAGS, summary: 'Ask for a password-reset link by mail',
            description: 'Answers 202 with the same body for a known and an unknown user or address (spec Endpoints). '
                + 'The link expires after an hour and works once.' + MAIL_NOTE,
            ...params, body: ForgotBody, response: { 202: Accepted }, errors: [503],
        }), async (request, reply) => {
            await deps.account.forgotPassword(realmOf(request), request.body as RecoveryRequest);
            return reply.status(202).send({ message: FORGOT_MESSAGE });
        });

        routes.post(`${prefix}/password-reset`, contract({
            auth: 'none', tags: TAGS, summary: 'Set a new password with the code of the reset mail',
            description: 'Ends every session of the user (spec States "user password reset"; back-channel logout is sent). '
                + 'A code that is unknown in this realm, used or expired answers 400 with an issue on `code`.',
            ...params, body: ResetBody, response: { 204: Reset },
        }), async (request, reply) => {
            await deps.account.resetPassword(realmOf(request), request.body.code, request.body.password);
            return reply.status(204).send();
        });
    }
}
