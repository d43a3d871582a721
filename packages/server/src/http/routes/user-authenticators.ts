import { Type } from '@sinclair/typebox';
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contract } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import {
    confirmAuthenticator, enrolAuthenticator, listAuthenticators, readAuthenticator, removeAuthenticator, type AuthenticatorDeps,
} from '../../domains/authenticators/service.js';

export const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const tags = ['user-authenticators'];

/**
 * API.md §7 `/user-authenticators`: type `totp` or (§8) `webauthn`, name, confirmed, userId, realmId;
 * never a seed or key material. A passkey also shows its transports, AAGUID and last use.
 */
export const Authenticator = Type.Object({
    id: Type.String(), type: Type.Union([Type.Literal('totp'), Type.Literal('webauthn')]), name: Type.String(), confirmed: Type.Boolean(),
    userId: Type.String(), realmId: Type.String(), createdAt: Type.String(), updatedAt: Type.String(),
    transports: Type.Optional(Type.Array(Type.String(), { description: 'webauthn: the transports the authenticator reported (WebAuthn §5.8.4).' })),
    aaguid: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'webauthn: the authenticator model (AAGUID; zeros under attestation none).' })),
    lastUsedAt: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'webauthn: the last sign-in or second factor it proved.' })),
}, { additionalProperties: false, title: 'user_authenticator' });
const single = (description: string) => Type.Object({ data: Authenticator, meta: Type.Object({}) }, { additionalProperties: false, description });
const IdParams = Type.Object({ id: Type.String({ pattern: UUID, description: 'The authenticator id.' }) });

/**
 * The fresh proof a user changing its own authenticators sends (authn/fresh-proof.ts); an
 * administrator acting on another user sends none. Bounds of `POST /users/@me/password`'s current
 * password, and of a TOTP code.
 */
export const Proof = {
    currentPassword: Type.Optional(Type.String({
        minLength: 1, maxLength: 512, description: 'Changing one\'s own authenticators: the current password (OWASP ASVS 5.0 §6.2.3); or currentCode.',
    })),
    currentCode: Type.Optional(Type.String({
        minLength: 1, maxLength: 16, description: 'Changing one\'s own authenticators: a current code of a confirmed authenticator, instead of currentPassword.',
    })),
};
export const PROOF_NOTE = ' Changing one\'s own authenticators needs `currentPassword` or `currentCode` (a current code of a confirmed one): '
    + 'missing answers 400, wrong answers 400 invalid_credentials and counts as a failed authentication. '
    + 'An administrator acting on another user\'s authenticators sends neither.';

/**
 * A DELETE usually carries no body (RFC 9110 §9.3.5 gives one no meaning of its own): an
 * administrator's removal sends none, and is read as the empty proof, not refused as a missing body.
 */
const absentBodyIsEmpty: preValidationHookHandler = (request, _reply, done) => {
    if (request.body === undefined || request.body === null) request.body = {};
    done();
};

/**
 * spec "Schema and statistics facets": `@` marks a reserved segment that is never an id, and this
 * collection has no facet (no @schema, no statistic). Such a path answers the 404 of an absent
 * route, as a disabled @schema does (http/routes/resource.ts), before the id's pattern would
 * answer 400 for a malformed id.
 */
const reservedSegment: preValidationHookHandler = (request, reply, done) => {
    if ((request.params as { id?: string }).id?.startsWith('@')) {
        reply.callNotFound();
        return;
    }
    done();
};

/** `/user-authenticators`: enrol, confirm, list, read and remove TOTP authenticators (multi-factor sign-in with TOTP; RFC 6238). */
export function registerUserAuthenticatorRoutes(app: FastifyInstance, appDeps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const deps: AuthenticatorDeps = {
        db: appDeps.db, handle: appDeps.handle, catalog: appDeps.catalog, dialect: appDeps.handle.dialect, secrets: appDeps.secrets, passwords: appDeps.passwords,
        attempts: appDeps.limits.secondFactor, events: appDeps.events,
    };
    routes.get('/user-authenticators', contract({
        auth: 'required', tags, summary: 'The authenticators of a user (the caller\'s own unless userId names another)',
        querystring: Type.Object({ userId: Type.Optional(Type.String({ pattern: UUID })) }, { additionalProperties: false }),
        response: {
            200: Type.Object({
                data: Type.Array(Authenticator),
                meta: Type.Object({ total: Type.Integer({ minimum: 0 }), limit: Type.Integer({ minimum: 0 }), offset: Type.Integer({ minimum: 0 }) }),
            }, { additionalProperties: false, description: 'Every authenticator of the user, oldest first.' }),
        },
    }), async (request) => {
        const data = await listAuthenticators(deps, request.context, request.query.userId?.toLowerCase());
        return { data, meta: { total: data.length, limit: data.length, offset: 0 } };
    });
    routes.post('/user-authenticators', contract({
        auth: 'required', tags, summary: 'Enrol a TOTP authenticator (RFC 6238); the seed is answered this once',
        description: '`meta.uri` is the otpauth:// URI, `meta.qrCode` its QR code as an SVG data URL, `meta.secret` the base32 seed for manual entry. '
            + 'The authenticator is unconfirmed until POST /user-authenticators/:id/confirm.' + PROOF_NOTE,
        body: Type.Object({
            name: Type.String({ minLength: 1, maxLength: 128, pattern: '\\S' }),
            type: Type.Optional(Type.Literal('totp')),
            userId: Type.Optional(Type.String({ pattern: UUID, description: 'The user; the caller by default.' })),
            ...Proof,
        }, { additionalProperties: false }),
        response: {
            201: Type.Object({
                data: Authenticator,
                meta: Type.Object({ secret: Type.String(), uri: Type.String(), qrCode: Type.String() }),
            }, { additionalProperties: false, description: 'The authenticator and its seed, shown once.' }),
        },
    }), async (request, reply) => {
        const { name, userId, currentPassword, currentCode } = request.body;
        const enrolment = await enrolAuthenticator(deps, request.context, { name, ...(userId ? { userId: userId.toLowerCase() } : {}) }, { currentPassword, currentCode });
        return reply.status(201).send(enrolment);
    });
    routes.get('/user-authenticators/:id', { ...contract({
        auth: 'required', tags, summary: 'One authenticator', params: IdParams, response: { 200: single('The authenticator.') },
    }), preValidation: reservedSegment }, async (request) => ({ data: await readAuthenticator(deps, request.context, request.params.id), meta: {} }));
    routes.post('/user-authenticators/:id/confirm', { ...contract({
        auth: 'required', tags, summary: 'Confirm an authenticator with a current code; answers the recovery codes once',
        description: 'A wrong code answers 400 and counts as a failed authentication. The recovery codes (single use) replace earlier ones: '
            + '`meta.recoveryCodesReplaced` is true when the user had some, which stop working.' + PROOF_NOTE,
        params: IdParams,
        body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 16, description: 'A current code of this authenticator.' }), ...Proof }, { additionalProperties: false }),
        response: {
            200: Type.Object({
                data: Authenticator,
                meta: Type.Object({
                    recoveryCodes: Type.Array(Type.String()),
                    recoveryCodesReplaced: Type.Boolean({ description: 'Earlier recovery codes of the user were replaced: they no longer work.' }),
                }),
            }, { additionalProperties: false, description: 'The confirmed authenticator and the recovery codes, shown once.' }),
        },
    }), preValidation: reservedSegment }, async (request) => {
        const { code, currentPassword, currentCode } = request.body;
        return confirmAuthenticator(deps, request.context, request.params.id, code, { currentPassword, currentCode });
    });
    routes.delete('/user-authenticators/:id', { ...contract({
        auth: 'required', tags, summary: 'Remove an authenticator', description: `The proof travels in a JSON body.${PROOF_NOTE}`, params: IdParams,
        body: Type.Object(Proof, { additionalProperties: false }), response: { 200: single('The removed authenticator.') },
    }), preValidation: [reservedSegment, absentBodyIsEmpty] }, async (request) => {
        const { currentPassword, currentCode } = request.body;
        return { data: await removeAuthenticator(deps, request.context, request.params.id, { currentPassword, currentCode }), meta: {} };
    });
}
