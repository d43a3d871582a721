import { randomUUID } from 'node:crypto';
import { PermissionName, RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { SoftwareAuthenticator } from '../../../test/software-authenticator.js';
import { relyingPartyOf } from '../../authn/passkey-ceremonies.js';

/** the password of every actor of test/actors.ts */
const PASSWORD = 'secret-password';

interface Options { data: { challenge: string; rp: { id: string }; user: { id: string }; authenticatorSelection: Record<string, unknown>; attestation: string } }

describeEachDialect('/user-authenticators of type webauthn (API.md §8: passkeys)', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    beforeAll(async () => {
        realmA = await createRealm(app, `pk-a-${randomUUID().slice(0, 8)}`);
        realmB = await createRealm(app, `pk-b-${randomUUID().slice(0, 8)}`);
    });
    const relyingParty = () => relyingPartyOf(app.deps.config.publicUrl);
    const selfManaging = (realm: string) => createActor(app, realm, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
    const options = (as: string, payload: Record<string, unknown> = { currentPassword: PASSWORD }) =>
        app.json<Options>({ method: 'POST', url: '/user-authenticators/webauthn/registration-options', payload, as }, 200);
    const register = (as: string, response: unknown, name = 'Laptop') =>
        app.request({ method: 'POST', url: '/user-authenticators/webauthn/registration', payload: { name, response }, as });

    it('registers a passkey: options with a user-bound challenge, a verified response stored as a confirmed webauthn authenticator, evented without key material', async () => {
        const user = await selfManaging(realmA);
        const offered = await options(user.header);
        const rp = relyingParty();
        expect(offered.data.rp.id).toBe(rp.id);
        expect(offered.data.attestation).toBe('none');
        expect(offered.data.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
        const authenticator = new SoftwareAuthenticator(rp.id, rp.origin);
        const created = await register(user.header, authenticator.register(offered.data.challenge));
        expect(created.statusCode, created.body).toBe(201);
        const record = created.json<{ data: Record<string, unknown> }>().data;
        expect(record).toMatchObject({ type: 'webauthn', name: 'Laptop', confirmed: true, userId: user.userId, realmId: realmA, transports: ['internal'], lastUsedAt: null });
        expect(record.aaguid).toBe('00000000-0000-0000-0000-000000000000');
        const listed = await app.json<{ data: { id: string; type: string }[] }>({ method: 'GET', url: '/user-authenticators', as: user.header }, 200);
        expect(listed.data).toEqual([expect.objectContaining({ id: record.id, type: 'webauthn' })]);
        expect(JSON.stringify(listed)).not.toContain(authenticator.id);
        const stored = await app.deps.db.selectFrom('auth_user_authenticators').select(['credential_id', 'public_key', 'sign_count']).where('id', '=', String(record.id)).executeTakeFirstOrThrow();
        expect(stored.credential_id).toBe(authenticator.id);
        const events = await app.deps.db.selectFrom('auth_events').select(['name', 'data']).where('ref_id', '=', String(record.id)).execute();
        expect(events.map((event) => event.name)).toEqual(['user_authenticator.created']);
        expect(String(events[0]!.data)).not.toContain(stored.public_key!);
        expect(String(events[0]!.data)).not.toContain(authenticator.id);
        // the challenge was spent: the same response again is refused
        const replayed = await register(user.header, authenticator.register(offered.data.challenge));
        expect(replayed.statusCode).toBe(400);
        expect(replayed.json().issues).toEqual([expect.objectContaining({ path: ['response'] })]);
    });

    it('refuses a wrong origin, another RP id, a missing user verification, a challenge issued to someone else, and a malformed response — each spending its challenge', async () => {
        const user = await selfManaging(realmA);
        const other = await selfManaging(realmA);
        const rp = relyingParty();
        const cases = [
            { origin: 'https://evil.example' }, { origin: `${rp.origin}:1` }, { rpId: 'evil.example' }, { userVerified: false },
        ];
        for (const knobs of cases) {
            const offered = await options(user.header);
            const authenticator = new SoftwareAuthenticator(rp.id, rp.origin);
            const refused = await register(user.header, authenticator.register(offered.data.challenge, knobs));
            expect(refused.statusCode, JSON.stringify(knobs)).toBe(400);
            // spent by the failure: the right response to it is refused too
            expect((await register(user.header, authenticator.register(offered.data.challenge))).statusCode, JSON.stringify(knobs)).toBe(400);
        }
        const offeredToOther = await options(other.header);
        expect((await register(user.header, new SoftwareAuthenticator(rp.id, rp.origin).register(offeredToOther.data.challenge))).statusCode).toBe(400);
        for (const response of [{}, { id: 'x', rawId: 'x', type: 'public-key', response: {}, clientExtensionResults: {} }, 'text']) {
            const answer = await register(user.header, response);
            expect(answer.statusCode, JSON.stringify(response)).toBe(400);
            expect(answer.json().issues.length).toBeGreaterThan(0);
        }
        const garbage = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' }, clientExtensionResults: {} };
        expect((await register(user.header, garbage)).statusCode).toBe(400);
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
    });

    it('asks for a fresh proof before it issues a challenge, and the realm switch turns registration off (403)', async () => {
        const user = await selfManaging(realmB);
        for (const payload of [{}, { currentPassword: 'wrong-password' }]) {
            const refused = await app.request({ method: 'POST', url: '/user-authenticators/webauthn/registration-options', payload, as: user.header });
            expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
        }
        await app.json({ method: 'POST', url: `/realms/${realmB}`, payload: { passkeysEnabled: false } }, 200);
        try {
            const refused = await app.request({ method: 'POST', url: '/user-authenticators/webauthn/registration-options', payload: { currentPassword: PASSWORD }, as: user.header });
            expect(refused.statusCode).toBe(403);
            expect(refused.json()).toMatchObject({ code: 'access_denied', message: expect.stringContaining('passkeysEnabled') });
        } finally {
            await app.json({ method: 'POST', url: `/realms/${realmB}`, payload: { passkeysEnabled: true } }, 200);
        }
        const realm = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/realms/${realmB}` }, 200);
        expect(realm.data).toMatchObject({ passkeysEnabled: true, passkeyPrompt: true });
    });

    it('keeps realms apart: a foreign-realm caller can neither start nor finish a registration for another realm\'s user, nor list its passkeys', async () => {
        const owner = await selfManaging(realmA);
        const foreign = await createActor(app, realmB, [
            { permission: PermissionName.USER_UPDATE, scope: RealmScope.OWN }, { permission: PermissionName.USER_READ, scope: RealmScope.OWN },
        ]);
        const rp = relyingParty();
        const offered = await options(owner.header);
        const authenticator = new SoftwareAuthenticator(rp.id, rp.origin);
        expect((await register(owner.header, authenticator.register(offered.data.challenge))).statusCode).toBe(201);
        expect((await app.request({ method: 'POST', url: '/user-authenticators/webauthn/registration-options', payload: { userId: owner.userId }, as: foreign.header })).statusCode).toBe(404);
        expect((await app.request({
            method: 'POST', url: '/user-authenticators/webauthn/registration', payload: { name: 'planted', userId: owner.userId, response: authenticator.register(offered.data.challenge) }, as: foreign.header,
        })).statusCode).toBe(404);
        expect((await app.request({ method: 'GET', url: `/user-authenticators?userId=${owner.userId}`, as: foreign.header })).statusCode).toBe(404);
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('user_id', '=', owner.userId).execute()).toHaveLength(1);
    });

    it('removes a passkey only with a fresh proof, evented', async () => {
        const user = await selfManaging(realmA);
        const rp = relyingParty();
        const offered = await options(user.header);
        const created = await register(user.header, new SoftwareAuthenticator(rp.id, rp.origin).register(offered.data.challenge));
        const id = created.json<{ data: { id: string } }>().data.id;
        for (const payload of [undefined, { currentPassword: 'wrong-password' }]) {
            const refused = await app.request({ method: 'DELETE', url: `/user-authenticators/${id}`, ...(payload ? { payload } : {}), as: user.header });
            expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
        }
        await app.json({ method: 'DELETE', url: `/user-authenticators/${id}`, payload: { currentPassword: PASSWORD }, as: user.header }, 200);
        const events = await app.deps.db.selectFrom('auth_events').select('name').where('ref_id', '=', id).execute();
        expect(events.map((event) => event.name).sort()).toEqual(['user_authenticator.created', 'user_authenticator.deleted']);
    });
});
