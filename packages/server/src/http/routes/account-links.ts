import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contract } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import { listConsents, listIdentityLinks, unlinkIdentity, withdrawConsent, type AccountLinkDeps } from '../../domains/account/links.js';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const IdParams = Type.Object({ id: Type.String({ pattern: UUID }) });
const ListQuery = Type.Object({ userId: Type.Optional(Type.String({ pattern: UUID, description: 'The user; the caller by default.' })) }, { additionalProperties: false });
const Counted = Type.Object({ total: Type.Integer({ minimum: 0 }), limit: Type.Integer({ minimum: 0 }), offset: Type.Integer({ minimum: 0 }) });
const Timestamps = { createdAt: Type.String(), updatedAt: Type.String() };

/** API.md §7 `/user-consents`: what a user granted a client, with the client's name (its owner may not read /clients). */
const Consent = Type.Object({
    id: Type.String(), userId: Type.String(), clientId: Type.String(), realmId: Type.String(), scopes: Type.Array(Type.String()),
    clientName: Type.String(), clientDisplayName: Type.Union([Type.String(), Type.Null()]), ...Timestamps,
}, { additionalProperties: false, title: 'user_consent' });

/** `/user-identities`: an upstream subject linked to a user (federation), with its provider's name. */
const IdentityLink = Type.Object({
    id: Type.String(), userId: Type.String(), realmId: Type.String(), providerId: Type.String(), providerName: Type.String(),
    providerDisplayName: Type.Union([Type.String(), Type.Null()]), protocol: Type.String(), subject: Type.String(), ...Timestamps,
}, { additionalProperties: false, title: 'user_identity' });

const list = <T extends ReturnType<typeof Type.Object>>(item: T, description: string) =>
    Type.Object({ data: Type.Array(item), meta: Counted }, { additionalProperties: false, description });
const single = <T extends ReturnType<typeof Type.Object>>(item: T, description: string) =>
    Type.Object({ data: item, meta: Type.Object({}) }, { additionalProperties: false, description });

/**
 * The account's grants and links, as the account console lists them: `GET|DELETE /user-consents`, `GET|DELETE
 * /user-identities`. The caller's own by default; an administrator names `userId` (user_read) and
 * withdraws with user_update on the user (domains/account/links.ts).
 */
export function registerAccountLinkRoutes(app: FastifyInstance, appDeps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const deps: AccountLinkDeps = { db: appDeps.db, handle: appDeps.handle, catalog: appDeps.catalog, sessions: appDeps.sessions, announce: appDeps.announce };
    const consents = ['user-consents'];
    routes.get('/user-consents', contract({
        auth: 'required', tags: consents, summary: 'The consents a user gave clients (the caller\'s own unless userId names another)',
        querystring: ListQuery, response: { 200: list(Consent, 'Every consent of the user, by client name.') },
    }), async (request) => {
        const data = await listConsents(deps, request.context, request.query.userId?.toLowerCase());
        return { data, meta: { total: data.length, limit: data.length, offset: 0 } };
    });
    routes.delete('/user-consents/:id', contract({
        auth: 'required', tags: consents, summary: 'Withdraw a consent; the user\'s sessions through that client end',
        params: IdParams, response: { 200: single(Consent, 'The withdrawn consent.') },
    }), async (request) => ({ data: await withdrawConsent(deps, request.context, request.params.id), meta: {} }));

    const identities = ['user-identities'];
    routes.get('/user-identities', contract({
        auth: 'required', tags: identities, summary: 'The upstream identities linked to a user (the caller\'s own unless userId names another)',
        querystring: ListQuery, response: { 200: list(IdentityLink, 'Every link of the user, by provider name.') },
    }), async (request) => {
        const data = await listIdentityLinks(deps, request.context, request.query.userId?.toLowerCase());
        return { data, meta: { total: data.length, limit: data.length, offset: 0 } };
    });
    routes.delete('/user-identities/:id', contract({
        auth: 'required', tags: identities, summary: 'Unlink an upstream identity',
        description: 'A user without a local password cannot remove its last link (400): it would be locked out.',
        params: IdParams, response: { 200: single(IdentityLink, 'The removed link.') },
    }), async (request) => ({ data: await unlinkIdentity(deps, request.context, request.params.id), meta: {} }));
}
