import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { relyingPartyOf } from '../../authn/passkey-ceremonies.js';
import { passkeyRegistrationOptions, registerPasskey, type PasskeyDeps } from '../../domains/authenticators/passkeys.js';
import { contract } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import { Authenticator, Proof, PROOF_NOTE, UUID } from './user-authenticators.js';

const tags = ['user-authenticators'];
const REALM_SWITCH = ' 403 access_denied while the realm\'s `passkeysEnabled` is false.';

/** WebAuthn §5.4 PublicKeyCredentialCreationOptionsJSON, as @simplewebauthn/browser's startRegistration takes it. */
const CreationOptions = Type.Object({
    challenge: Type.String(), rp: Type.Object({ id: Type.Optional(Type.String()), name: Type.String() }),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
}, { additionalProperties: true, description: 'PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3 §5.4): pass it to navigator.credentials.create().' });

/**
 * WebAuthn §5.2.1 RegistrationResponseJSON, bounded: a credential id is at most 1023 bytes (§5.8.3),
 * an attestation object under `none` a few hundred bytes (64 KiB leaves room for any key type).
 */
const RegistrationResponse = Type.Object({
    id: Type.String({ minLength: 1, maxLength: 1400, pattern: '^[A-Za-z0-9_-]+$' }),
    rawId: Type.String({ minLength: 1, maxLength: 1400, pattern: '^[A-Za-z0-9_-]+$' }),
    type: Type.Literal('public-key'),
    response: Type.Object({
        clientDataJSON: Type.String({ minLength: 1, maxLength: 4096 }),
        attestationObject: Type.String({ minLength: 1, maxLength: 65536 }),
        authenticatorData: Type.Optional(Type.String({ maxLength: 65536 })),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(Type.String({ maxLength: 4096 })),
    }, { additionalProperties: false }),
    clientExtensionResults: Type.Unknown({ description: 'The client extension outputs (WebAuthn §5.1.9); none is asked for.' }),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
}, { additionalProperties: false, description: 'RegistrationResponseJSON (WebAuthn Level 3 §5.2.1), as @simplewebauthn/browser\'s startRegistration answers it.' });

/** `POST /user-authenticators/webauthn/registration-options` and `.../registration` (API.md §8: type `webauthn`). */
export function registerPasskeyRegistrationRoutes(app: FastifyInstance, appDeps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const deps: PasskeyDeps = {
        db: appDeps.db, handle: appDeps.handle, catalog: appDeps.catalog, dialect: appDeps.handle.dialect, secrets: appDeps.secrets, passwords: appDeps.passwords,
        attempts: appDeps.limits.secondFactor, events: appDeps.events, relyingParty: relyingPartyOf(appDeps.config.publicUrl),
    };
    routes.post('/user-authenticators/webauthn/registration-options', contract({
        auth: 'required', tags, summary: 'Start registering a passkey (WebAuthn): the creation options, with a single-use challenge of five minutes',
        description: 'A discoverable credential with user verification required and attestation `none`; the relying party is PUBLIC_URL\'s host.'
            + PROOF_NOTE + REALM_SWITCH,
        body: Type.Object({ userId: Type.Optional(Type.String({ pattern: UUID, description: 'The user; the caller by default.' })), ...Proof }, { additionalProperties: false }),
        response: { 200: Type.Object({ data: CreationOptions, meta: Type.Object({}) }, { additionalProperties: false, description: 'The creation options.' }) },
        errors: [403],
    }), async (request) => {
        const { userId, currentPassword, currentCode } = request.body;
        return { data: await passkeyRegistrationOptions(deps, request.context, { ...(userId ? { userId: userId.toLowerCase() } : {}) }, { currentPassword, currentCode }), meta: {} };
    });
    routes.post('/user-authenticators/webauthn/registration', contract({
        auth: 'required', tags, summary: 'Finish registering a passkey: the authenticator\'s response to the options\' challenge',
        description: 'The response is verified against a live challenge issued to this user (spent by this request, whatever the outcome), the exact origin '
            + 'of PUBLIC_URL, its host as the relying party, and the user-verification flag; anything wrong answers 400 with an issue on `response`.' + REALM_SWITCH,
        body: Type.Object({
            name: Type.String({ minLength: 1, maxLength: 128, pattern: '\\S', description: 'A name the user chooses ("Laptop", "Phone").' }),
            userId: Type.Optional(Type.String({ pattern: UUID, description: 'The user; the caller by default.' })),
            response: RegistrationResponse,
        }, { additionalProperties: false }),
        response: { 201: Type.Object({ data: Authenticator, meta: Type.Object({}) }, { additionalProperties: false, description: 'The passkey, confirmed.' }) },
        errors: [403],
    }), async (request, reply) => {
        const { name, userId, response } = request.body;
        const record = await registerPasskey(deps, request.context, {
            name, ...(userId ? { userId: userId.toLowerCase() } : {}), response: response as unknown as RegistrationResponseJSON,
        });
        return reply.status(201).send({ data: record, meta: {} });
    });
}
