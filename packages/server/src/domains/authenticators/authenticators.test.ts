import { randomUUID } from 'node:crypto';
import { PermissionName, RealmScope } from '@realmgate/core';
import { generate } from 'otplib';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { nextTotpCode } from '../../../test/browser.js';
import { login } from '../../../test/sessions.js';
import { recoveryCodeDigest } from '../../authn/second-factor.js';

/** the password of every actor of test/actors.ts */
const PASSWORD = 'secret-password';

interface Authenticator { id: string; type: string; name: string; confirmed: boolean; userId: string; realmId: string }
interface Enrolment { data: Authenticator; meta: { secret: string; uri: string; qrCode: string } }

describeEachDialect('/user-authenticators (API.md §7; RFC 6238)', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    beforeAll(async () => {
        realmA = await createRealm(app, `authn-a-${randomUUID().slice(0, 8)}`);
        realmB = await createRealm(app, `authn-b-${randomUUID().slice(0, 8)}`);
        await app.json({ method: 'POST', url: `/realms/${realmA}`, payload: { displayName: 'Realm A' } }, 200);
    });
    const selfManaging = (realm: string) => createActor(app, realm, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
    const enrol = (as: string, payload: Record<string, unknown> = { name: 'phone', currentPassword: PASSWORD }) =>
        app.json<Enrolment>({ method: 'POST', url: '/user-authenticators', payload, as }, 201);

    it('enrols with the seed shown once (otpauth URI, QR code), confirms with a code, and never answers the seed again', async () => {
        const user = await selfManaging(realmA);
        const enrolled = await enrol(user.header);
        expect(enrolled.data).toMatchObject({ type: 'totp', name: 'phone', confirmed: false, userId: user.userId, realmId: realmA });
        const { secret, uri, qrCode } = enrolled.meta;
        expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
        expect(uri).toMatch(/^otpauth:\/\/totp\//);
        const parsed = new URL(uri);
        expect(decodeURIComponent(parsed.pathname)).toBe(`/Realm A:${user.name}`);
        expect(parsed.searchParams.get('secret')).toBe(secret);
        expect(parsed.searchParams.get('issuer')).toBe('Realm A');
        expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
        expect(Buffer.from(qrCode.split(',')[1]!, 'base64').toString()).toContain('<svg');
        // stored sealed under the realm's encryption key, never in the clear
        const stored = await app.deps.db.selectFrom('auth_user_authenticators').select('secret').where('id', '=', enrolled.data.id).executeTakeFirstOrThrow();
        expect(stored.secret).toMatch(/^enc:v1:/);
        expect(stored.secret).not.toContain(secret);

        const wrong = await app.request({ method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { code: '000000', currentPassword: PASSWORD }, as: user.header });
        expect(wrong.statusCode).toBe(400);
        expect(wrong.json().issues).toEqual([expect.objectContaining({ path: ['code'] })]);
        const malformed = await app.request({ method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { otp: '1' }, as: user.header });
        expect(malformed.statusCode).toBe(400);

        const confirmed = await app.json<{ data: Authenticator; meta: { recoveryCodes: string[] } }>({
            method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { code: await generate({ secret }), currentPassword: PASSWORD }, as: user.header,
        }, 200);
        expect(confirmed.data.confirmed).toBe(true);
        expect(new Set(confirmed.meta.recoveryCodes).size).toBe(10);
        const digests = await app.deps.db.selectFrom('auth_user_recovery_codes').select('code_digest').where('user_id', '=', user.userId).execute();
        expect(digests).toHaveLength(10);
        for (const { code_digest: digest } of digests) expect(digest).toMatch(/^[0-9a-f]{64}$/);

        const listed = await app.request({ method: 'GET', url: '/user-authenticators', as: user.header });
        expect(listed.statusCode).toBe(200);
        expect(listed.json()).toEqual({ data: [expect.objectContaining({ id: enrolled.data.id, confirmed: true })], meta: { total: 1, limit: 1, offset: 0 } });
        const read = await app.request({ method: 'GET', url: `/user-authenticators/${enrolled.data.id}`, as: user.header });
        for (const body of [listed.body, read.body]) {
            expect(body).not.toContain(secret);
            expect(body).not.toContain('enc:v1');
        }
        expect(Object.keys(read.json().data).sort()).toEqual(['confirmed', 'createdAt', 'id', 'name', 'realmId', 'type', 'updatedAt', 'userId']);

        const removed = await app.request({ method: 'DELETE', url: `/user-authenticators/${enrolled.data.id}`, payload: { currentPassword: PASSWORD }, as: user.header });
        expect(removed.statusCode).toBe(200);
        expect((await app.json<{ data: unknown[] }>({ method: 'GET', url: '/user-authenticators', as: user.header }, 200)).data).toEqual([]);
        // the last authenticator takes the recovery codes with it
        expect(await app.deps.db.selectFrom('auth_user_recovery_codes').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
        // spec Events 4: each write is logged, never with the seed
        const events = await app.deps.db.selectFrom('auth_events').select(['name', 'data', 'realm_id']).where('ref_id', '=', enrolled.data.id).execute();
        expect(events.map((event) => event.name).sort()).toEqual(['user_authenticator.created', 'user_authenticator.deleted', 'user_authenticator.updated']);
        for (const event of events) {
            expect(event.realm_id).toBe(realmA);
            expect(String(event.data)).not.toContain(secret);
            expect(String(event.data)).not.toContain('enc:v1');
        }
    });

    it('asks a user changing its own authenticators with a bearer for a fresh proof: the current password or a current code of a confirmed one', async () => {
        const user = await selfManaging(realmA);
        const { bearer } = await login(app, realmA, user.name, PASSWORD);
        const as = bearer;
        // OWASP ASVS 5.0 §6.2.3, as a change of one's own password: the bearer alone proves nothing
        for (const payload of [{ name: 'phone' }, { name: 'phone', currentPassword: 'wrong-password' }, { name: 'phone', currentCode: '123456' }]) {
            const refused = await app.request({ method: 'POST', url: '/user-authenticators', payload, as });
            expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
            expect(refused.json<{ issues: { path: string[] }[] }>().issues.map((found) => found.path[0])).toEqual([Object.keys(payload)[1] ?? 'currentPassword']);
        }
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('user_id', '=', user.userId).execute()).toEqual([]);
        const wrong = await app.request({ method: 'POST', url: '/user-authenticators', payload: { name: 'phone', currentPassword: 'wrong-password' }, as });
        expect(wrong.json()).toMatchObject({ code: 'invalid_credentials' });

        const first = await enrol(as, { name: 'phone', currentPassword: PASSWORD });
        const unproven = await app.request({ method: 'POST', url: `/user-authenticators/${first.data.id}/confirm`, payload: { code: await generate({ secret: first.meta.secret }) }, as });
        expect(unproven.statusCode).toBe(400);
        expect(unproven.json<{ issues: { path: string[] }[] }>().issues[0]!.path).toEqual(['currentPassword']);
        const confirmed = await app.json<{ meta: { recoveryCodes: string[]; recoveryCodesReplaced: boolean } }>({
            method: 'POST', url: `/user-authenticators/${first.data.id}/confirm`, payload: { code: await generate({ secret: first.meta.secret }), currentPassword: PASSWORD }, as,
        }, 200);
        expect(confirmed.meta.recoveryCodesReplaced).toBe(false);

        // a current code of the confirmed authenticator proves as well as the password
        const second = await enrol(as, { name: 'tablet', currentCode: await nextTotpCode(first.meta.secret) });
        const replaced = await app.json<{ meta: { recoveryCodes: string[]; recoveryCodesReplaced: boolean } }>({
            method: 'POST', url: `/user-authenticators/${second.data.id}/confirm`, payload: { code: await generate({ secret: second.meta.secret }), currentPassword: PASSWORD }, as,
        }, 200);
        // the answer says the codes shown at the first confirmation stopped working
        expect(replaced.meta.recoveryCodesReplaced).toBe(true);
        const stored = (await app.deps.db.selectFrom('auth_user_recovery_codes').select('code_digest').where('user_id', '=', user.userId).execute()).map((row) => row.code_digest);
        expect(stored.sort()).toEqual(replaced.meta.recoveryCodes.map(recoveryCodeDigest).sort());

        for (const payload of [undefined, {}, { currentPassword: 'wrong-password' }]) {
            const refused = await app.request({ method: 'DELETE', url: `/user-authenticators/${first.data.id}`, ...(payload ? { payload } : {}), as });
            expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
            expect(refused.json<{ issues: unknown[] }>().issues.length).toBeGreaterThan(0);
        }
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(2);
        await app.json({ method: 'DELETE', url: `/user-authenticators/${first.data.id}`, payload: { currentPassword: PASSWORD }, as }, 200);
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(1);
    });

    it('counts a wrong currentCode toward the user\'s second-factor lock, whatever the address: 429 at the tenth, then even for the right code', async () => {
        const user = await selfManaging(realmA);
        const { bearer: as } = await login(app, realmA, user.name, PASSWORD);
        const enrolled = await enrol(as);
        await app.json({
            method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { code: await generate({ secret: enrolled.meta.secret }), currentPassword: PASSWORD }, as,
        }, 200);
        const right = await nextTotpCode(enrolled.meta.secret);
        // a code outside the accepted window (RFC 6238 §5.2: one step either side)
        const now = Math.floor(Date.now() / 1000);
        const window = await Promise.all([-60, -30, 0, 30, 60].map((offset) => generate({ secret: enrolled.meta.secret, epoch: now + offset })));
        const wrong = ['000000', '000001', '000002', '000003', '000004', '000005'].find((code) => !window.includes(code))!;
        const attempt = (code: string, address: number) => app.request({
            method: 'POST', url: '/user-authenticators', payload: { name: 'guessed', currentCode: code }, as, headers: { 'x-forwarded-for': `198.51.100.${address}` },
        });
        for (let address = 1; address < 10; address++) expect((await attempt(wrong, address)).json()).toMatchObject({ code: 'invalid_credentials' });
        const locking = await attempt(wrong, 10);
        expect(locking.statusCode).toBe(429);
        expect(locking.json()).toMatchObject({ code: 'login_attempt_throttled' });
        expect(Number(locking.headers['retry-after'])).toBeGreaterThan(60);
        const refused = await attempt(right, 11);
        expect(refused.statusCode).toBe(429);
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(1);
        await app.deps.events.settled();
        const logged = await app.deps.db.selectFrom('auth_events').select('name')
            .where('ref_id', '=', user.userId).where('name', '=', 'secondFactorLocked').execute();
        expect(logged).toHaveLength(1);
    });

    it('validates input: unknown members, bad ids, a missing name; a user without self-manage cannot enrol', async () => {
        const user = await selfManaging(realmA);
        for (const payload of [{}, { name: '' }, { name: 'x', secret: 'JBSWY3DPEHPK3PXP' }, { name: 'x', type: 'hotp' }, { name: 'x', userId: 'nope' }]) {
            const answer = await app.request({ method: 'POST', url: '/user-authenticators', payload, as: user.header });
            expect(answer.statusCode, JSON.stringify(payload)).toBe(400);
            expect(answer.json().issues.length).toBeGreaterThan(0);
        }
        expect((await app.request({ method: 'GET', url: '/user-authenticators/not-a-uuid', as: user.header })).statusCode).toBe(400);
        expect((await app.request({ method: 'GET', url: `/user-authenticators/${randomUUID()}`, as: user.header })).statusCode).toBe(404);
        expect((await app.request({ method: 'GET', url: '/user-authenticators?filter[x]=1', as: user.header })).statusCode).toBe(400);
        const bare = await createActor(app, realmA, []);
        expect((await app.request({ method: 'POST', url: '/user-authenticators', payload: { name: 'x' }, as: bare.header })).statusCode).toBe(403);
        // reading one's own needs no permission, as GET /users/@me
        expect((await app.request({ method: 'GET', url: '/user-authenticators', as: bare.header })).statusCode).toBe(200);
    });

    it('isolates realms: a foreign administrator sees and touches nothing; the realm\'s own administrator lists and removes', async () => {
        const owner = await selfManaging(realmA);
        const enrolled = await enrol(owner.header);
        const userAdmin = [PermissionName.USER_READ, PermissionName.USER_UPDATE].map((permission) => ({ permission, scope: RealmScope.OWN }));
        const foreign = await createActor(app, realmB, userAdmin);
        const peer = await selfManaging(realmA);
        for (const caller of [foreign.header, peer.header]) {
            expect((await app.request({ method: 'GET', url: `/user-authenticators?userId=${owner.userId}`, as: caller })).statusCode).toBe(404);
            expect((await app.request({ method: 'GET', url: `/user-authenticators/${enrolled.data.id}`, as: caller })).statusCode).toBe(404);
            expect((await app.request({ method: 'DELETE', url: `/user-authenticators/${enrolled.data.id}`, as: caller })).statusCode).toBe(404);
            expect((await app.request({
                method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { code: await generate({ secret: enrolled.meta.secret }) }, as: caller,
            })).statusCode).toBe(404);
            expect((await app.request({ method: 'POST', url: '/user-authenticators', payload: { name: 'planted', userId: owner.userId }, as: caller })).statusCode).toBe(404);
        }
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('user_id', '=', owner.userId).execute()).toHaveLength(1);

        const reader = await createActor(app, realmA, [{ permission: PermissionName.USER_READ, scope: RealmScope.OWN }]);
        const listed = await app.json<{ data: Authenticator[] }>({ method: 'GET', url: `/user-authenticators?userId=${owner.userId}`, as: reader.header }, 200);
        expect(listed.data.map((item) => item.id)).toEqual([enrolled.data.id]);
        expect((await app.request({ method: 'DELETE', url: `/user-authenticators/${enrolled.data.id}`, as: reader.header })).statusCode).toBe(403);
        const admin = await createActor(app, realmA, userAdmin);
        expect((await app.request({ method: 'DELETE', url: `/user-authenticators/${enrolled.data.id}`, as: admin.header })).statusCode).toBe(200);
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('user_id', '=', owner.userId).execute()).toEqual([]);
    });

    it('reads and writes the realm settings (API.md §7), false by default', async () => {
        const settings = ['registrationEnabled', 'emailVerificationRequired', 'mfaEnabled', 'mfaRequired'];
        const created = await app.json<{ data: Record<string, unknown> }>({ method: 'POST', url: '/realms', payload: { name: `settings-${randomUUID().slice(0, 8)}` } }, 201);
        for (const name of settings) expect(created.data[name], name).toBe(false);
        const updated = await app.json<{ data: Record<string, unknown> }>({
            method: 'POST', url: `/realms/${created.data.id as string}`, payload: Object.fromEntries(settings.map((name) => [name, true])),
        }, 200);
        for (const name of settings) expect(updated.data[name], name).toBe(true);
        const read = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/realms/${created.data.id as string}` }, 200);
        for (const name of settings) expect(read.data[name], name).toBe(true);
        const filtered = await app.json<{ data: { id: string }[] }>({ method: 'GET', url: '/realms?filter[mfaEnabled]=true' }, 200);
        expect(filtered.data.map((realm) => realm.id)).toContain(created.data.id);
        const refused = await app.request({ method: 'POST', url: `/realms/${created.data.id as string}`, payload: { mfaEnabled: 'yes' } });
        expect(refused.statusCode).toBe(400);
    });

    it('DELETE /keys/:id answers 409 while multi-factor seeds are sealed under the realm encryption key; forced, the authenticators go', async () => {
        const user = await selfManaging(realmB);
        const enrolled = await enrol(user.header);
        const sealed = await app.deps.db.selectFrom('auth_user_authenticators').select('secret').where('id', '=', enrolled.data.id).executeTakeFirstOrThrow();
        const keyId = sealed.secret.split(':')[2]!;
        const refused = await app.request({ method: 'DELETE', url: `/keys/${keyId}` });
        expect(refused.statusCode).toBe(409);
        expect(refused.json()).toMatchObject({ code: 'entity_conflict', message: expect.stringContaining('1 multi-factor seed(s)') });
        expect(await app.deps.db.selectFrom('auth_keys').select('id').where('id', '=', keyId).executeTakeFirst()).toBeDefined();
        await app.json({ method: 'DELETE', url: `/keys/${keyId}?force=true` }, 200);
        expect(await app.deps.db.selectFrom('auth_user_authenticators').select('id').where('id', '=', enrolled.data.id).executeTakeFirst()).toBeUndefined();
    });
});

describeEachDialect('a wrong fresh proof counts as a failed authentication (spec Limits)', (dialect) => {
    const FAILURES = 2;
    // an app of its own: the address's failures elsewhere would refuse it at once
    const app = useTestApp(dialect, {}, { limits: { failureMax: FAILURES } });

    it('refuses the address after failureMax wrong current passwords or codes', async () => {
        const realm = await createRealm(app, `proof-${randomUUID().slice(0, 8)}`);
        const user = await createActor(app, realm, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
        const { bearer } = await login(app, realm, user.name, PASSWORD);
        const wrong = [{ name: 'phone', currentPassword: 'wrong-password' }, { name: 'phone', currentCode: '000000' }];
        for (const payload of wrong) {
            const refused = await app.request({ method: 'POST', url: '/user-authenticators', payload, as: bearer });
            expect(refused.statusCode, refused.body).toBe(400);
            expect(refused.json()).toMatchObject({ code: 'invalid_credentials' });
        }
        expect((await app.request({ method: 'GET', url: '/users/@me', as: bearer })).statusCode).toBe(429);
    });
});
