import { Ajv2020 } from 'ajv/dist/2020.js';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../app.js';
import { deliveredSessions, useBackchannelWorld } from '../../backchannel.js';
import { authorizeParams, browser, browserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { createRealm, uniqueName } from '../../grant-fixtures.js';
import { linkIn, startMailServer, type MailServer } from '../../mail-server.js';
import { login, probe } from '../../sessions.js';
import type { Config, DeepPartial } from '../../../src/config/schema.js';
import { sha256Hex } from '../../../src/secrets/digests.js';

/*
 * Activation and recovery by mail (spec States) against a real SMTP relay on loopback (test/mail-server.ts, self-signed
 * certificate, trusted through the spec's opt-out ?tls.rejectUnauthorized=false): the activation
 * and reset links are taken from the received mail and followed to the end in the pages; the
 * enumeration-safe 202; expiry (a controllable clock), single use and realm isolation of codes.
 */
describeEachDialect('activation and recovery by mail', (dialect) => {
    let mail: MailServer;
    const overrides: DeepPartial<Config> = {};
    let clockOffset = 0;
    // registered before the app's hooks: the relay's port goes into the configuration it reads
    beforeAll(async () => {
        mail = await startMailServer();
        overrides.smtp = `smtp://127.0.0.1:${mail.port}?tls.rejectUnauthorized=false&from=auth%40example.test`;
    });
    afterAll(async () => mail.close());
    const app: TestApp = useTestApp(dialect, overrides, { accountClock: () => Date.now() + clockOffset });
    const backchannel = useBackchannelWorld(app);

    let realmId: string;
    let realmName: string;
    beforeAll(async () => {
        realmName = uniqueName('mail');
        realmId = await createRealm(app, realmName);
        await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: { registrationEnabled: true, displayName: 'Mail Realm' } }, 200);
    });

    const register = async (realm = realmId) => {
        const name = uniqueName('self');
        const email = `${name}@example.test`;
        const password = 'first-password-1';
        const response = await app.request({ method: 'POST', url: `/realms/${realm}/register`, as: null, payload: { name, email, password } });
        return { response, name, email, password };
    };
    const userRow = (id: string) => app.deps.db.selectFrom('auth_users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    /** the path and query of a mailed link (the app is reached through inject, not PUBLIC_URL's port) */
    const pathOf = (link: string) => {
        const url = new URL(link);
        expect(url.origin).toBe(new URL(app.deps.config.publicUrl).origin);
        return `${url.pathname}${url.search}`;
    };
    const codeOf = (link: string) => new URL(link).searchParams.get('code')!;
    const forgot = (payload: Record<string, string>, realm = realmId) => app.request({ method: 'POST', url: `/realms/${realm}/password-forgot`, as: null, payload });

    it('registers in a realm that allows it, mails an activation link, and the page round-trip sets emailVerified', async () => {
        const { response, name, email, password } = await register();
        expect(response.statusCode, response.body).toBe(201);
        const created = response.json<{ data: { id: string; emailVerified: boolean; realmId: string } }>().data;
        expect(created).toMatchObject({ emailVerified: false, realmId });
        expect(response.body).not.toMatch(/hash|password/i);

        const message = await mail.mailTo(email);
        expect(message.text).toMatch(/^Subject: Confirm your address for Mail Realm/m);
        const link = linkIn(message, `${app.deps.config.publicUrl}/realms/${realmName}/activate?code=`);
        // stored as a digest, never as the mailed code
        const row = await userRow(created.id);
        expect(row.activate_hash).toBe(sha256Hex(codeOf(link)));

        const client = browser(app);
        const page = await client.get(pathOf(link));
        expect(page.statusCode, page.body).toBe(200);
        expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(page.headers['cache-control']).toBe('no-store');
        // opening the link changes nothing (a mail scanner's prefetch): the form does
        expect((await userRow(created.id)).activate_hash).not.toBeNull();
        const done = await client.submit(page);
        expect(done.statusCode, done.body).toBe(200);
        expect(done.body).toContain('Your address is confirmed.');
        const user = await app.json<{ data: { emailVerified: boolean } }>({ method: 'GET', url: `/users/${created.id}` }, 200);
        expect(user.data.emailVerified).toBe(true);
        expect((await userRow(created.id)).activate_hash).toBeNull();

        // single use: the link and the API both refuse the spent code
        expect((await client.get(pathOf(link))).statusCode).toBe(400);
        const again = await app.request({ method: 'POST', url: `/realms/${realmId}/users/activate`, as: null, payload: { code: codeOf(link) } });
        expect(again.statusCode).toBe(400);
        expect(again.json<{ issues: { path: string[] }[] }>().issues[0]!.path).toEqual(['code']);
        await login(app, realmId, name, password);
        // an email change clears emailVerified (spec States)
        const changed = await app.json<{ data: { emailVerified: boolean } }>({ method: 'POST', url: `/users/${created.id}`, payload: { email: `new-${email}` } }, 200);
        expect(changed.data.emailVerified).toBe(false);
    });

    it('keeps an unverified address out of a realm that requires verification: password grant, browser form and Basic, until the activation link is followed', async () => {
        const strictName = uniqueName('strict');
        const strict = await createRealm(app, strictName);
        await app.json({ method: 'POST', url: `/realms/${strict}`, payload: { registrationEnabled: true, emailVerificationRequired: true } }, 200);
        const { response, name, email, password } = await register(strict);
        expect(response.statusCode, response.body).toBe(201);
        const userId = response.json<{ data: { id: string } }>().data.id;

        const grant = () => app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: name, password, realm_id: strict } });
        const refused = await grant();
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
        expect(refused.json<{ error_description: string }>().error_description).toMatch(/not verified/);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: app.basic(userId, password) })).statusCode).toBe(401);
        // the browser form says why, and signs nobody in
        const client = browser(app);
        const clientId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: uniqueName('app'), realmId: strict, redirectUri: 'https://app.example/cb', firstParty: true } }, 201)).data.id;
        const form = await client.get(`/authorize?${new URLSearchParams({
            response_type: 'code', client_id: clientId, redirect_uri: 'https://app.example/cb', scope: 'openid', state: 's',
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
        }).toString()}`);
        expect(form.statusCode, form.body).toBe(200);
        const page = await client.submit(form, { username: name, password });
        expect(page.statusCode).toBe(403);
        expect(page.body).toContain('not verified yet');
        expect(client.jar.cookies.has('realmgate_session')).toBe(false);

        // the activation round-trip opens every way in
        const link = linkIn(await mail.mailTo(email), `${app.deps.config.publicUrl}/realms/${strictName}/activate?code=`);
        expect((await app.request({ method: 'POST', url: `/realms/${strict}/users/activate`, as: null, payload: { code: codeOf(link) } })).statusCode).toBe(200);
        expect((await grant()).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: app.basic(userId, password) })).statusCode).toBe(200);
    });

    it('refuses registration where the realm does not allow it, a taken name, and invalid input', async () => {
        const closed = await createRealm(app);
        expect((await register(closed)).response.statusCode).toBe(403);
        const first = await register();
        expect(first.response.statusCode).toBe(201);
        const taken = await app.request({ method: 'POST', url: `/realms/${realmId}/register`, as: null, payload: { name: first.name, email: 'x@example.test', password: 'whatever-1' } });
        expect(taken.statusCode).toBe(409);
        for (const payload of [{ name: 'a', email: 'not-an-address', password: 'long-enough' }, { name: 'b', email: 'b@example.test', password: '1' }, { name: 'c', email: 'c@example.test' }, { name: randomUUID(), email: 'd@example.test', password: 'long-enough' }]) {
            const response = await app.request({ method: 'POST', url: `/realms/${realmId}/register`, as: null, payload });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json<{ issues: unknown[] }>().issues.length).toBeGreaterThan(0);
        }
    });

    it('answers /password-forgot 202 with the same body for a known and an unknown user or address, and mails only the known one', async () => {
        const { name, email } = await register();
        const before = mail.received.length;
        await mail.mailTo(email);
        const answers = [
            await forgot({ name }),
            await forgot({ email }),
            await forgot({ name: uniqueName('nobody') }),
            await forgot({ email: `${uniqueName('nobody')}@example.test` }),
        ];
        for (const answer of answers) expect(answer.statusCode).toBe(202);
        expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
        expect(new Set(answers.map((answer) => answer.headers['content-length'])).size).toBe(1);
        await app.deps.mailer!.settled();
        const sent = mail.received.slice(before).filter((message) => /Subject: Reset your password/.test(message.text));
        // by name and by address: one account, one address, one mail a minute (mail-throttle.test.ts)
        expect(sent.map((message) => message.to)).toEqual([[email]]);
        expect((await forgot({})).statusCode).toBe(400);
    });

    it('follows the reset link to a new password: every session ends, the old password stops working, the code works once', async () => {
        const { response, name, email, password } = await register();
        const id = response.json<{ data: { id: string } }>().data.id;
        const sessions = [await login(app, realmId, name, password), await login(app, realmId, name, password)];
        await mail.mailTo(email);
        const before = mail.received.length;
        expect((await forgot({ name })).statusCode).toBe(202);
        await app.deps.mailer!.settled();
        const message = mail.received.slice(before).find((received) => received.to.includes(email))!;
        const link = linkIn(message, `${app.deps.config.publicUrl}/realms/${realmName}/reset-password?code=`);
        expect((await userRow(id)).reset_hash).toBe(sha256Hex(codeOf(link)));

        const client = browser(app);
        const page = await client.get(pathOf(link));
        expect(page.statusCode, page.body).toBe(200);
        const differ = await client.submit(page, { password: 'new-password-2', passwordRepeat: 'other-password-2' });
        expect(differ.statusCode).toBe(400);
        expect(differ.body).toContain('The two passwords differ.');
        const withoutCsrf = await client.post(new URL(link).pathname, { code: codeOf(link), password: 'new-password-2', passwordRepeat: 'new-password-2' });
        expect(withoutCsrf.statusCode).toBe(403);
        const done = await client.submit(page, { password: 'new-password-2', passwordRepeat: 'new-password-2' });
        expect(done.statusCode, done.body).toBe(200);
        expect(done.body).toContain('Your new password is set');

        for (const session of sessions) expect(await probe(app, session.bearer)).toBe(401);
        const old = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: name, password, realm_id: realmId } });
        expect(old.statusCode).toBe(400);
        await login(app, realmId, name, 'new-password-2');
        const reused = await app.request({ method: 'POST', url: `/realms/${realmId}/password-reset`, as: null, payload: { code: codeOf(link), password: 'third-password-3' } });
        expect(reused.statusCode).toBe(400);
        expect((await client.get(pathOf(link))).statusCode).toBe(400);
    });

    it('announces every session a reset ends to the clients\' back-channel logout endpoints', async () => {
        const realm = backchannel.realm;
        await app.json({ method: 'POST', url: `/realms/${realm.id}`, payload: { registrationEnabled: true } }, 200);
        const { response, name, email, password } = await register(realm.id);
        const id = response.json<{ data: { id: string } }>().data.id;
        await mail.mailTo(email);
        const through = { client_id: backchannel.client.name, client_secret: backchannel.client.secret };
        const sessions = [await login(app, realm.id, name, password, through), await login(app, realm.id, name, password, through)];
        const before = mail.received.length;
        await forgot({ name }, realm.id);
        await app.deps.mailer!.settled();
        const code = codeOf(linkIn(mail.received.slice(before).find((received) => received.to.includes(email))!, `${app.deps.config.publicUrl}/realms/`));
        const reset = await app.request({ method: 'POST', url: `/realms/${realm.name}/password-reset`, as: null, payload: { code, password: 'after-reset-1' } });
        expect(reset.statusCode, reset.body).toBe(204);
        const delivered = await deliveredSessions(app, backchannel.listener, realm, backchannel.client.id);
        expect(delivered).toEqual(sessions.map((session) => [id, session.sessionId]).sort());
    });

    it('lets a reset code expire after an hour (controllable clock)', async () => {
        const { name, email } = await register();
        await mail.mailTo(email);
        const before = mail.received.length;
        await forgot({ name });
        await app.deps.mailer!.settled();
        const code = codeOf(linkIn(mail.received.slice(before).find((received) => received.to.includes(email))!, `${app.deps.config.publicUrl}/realms/`));
        clockOffset = 3_600_000 + 1000;
        try {
            expect((await app.request({ method: 'GET', url: `/realms/${realmName}/reset-password?code=${code}`, as: null })).statusCode).toBe(400);
            const late = await app.request({ method: 'POST', url: `/realms/${realmId}/password-reset`, as: null, payload: { code, password: 'too-late-1' } });
            expect(late.statusCode).toBe(400);
        } finally {
            clockOffset = 0;
        }
        // the same code within its hour still works (the refusal above was the expiry)
        const inTime = await app.request({ method: 'POST', url: `/realms/${realmId}/password-reset`, as: null, payload: { code, password: 'in-time-1' } });
        expect(inTime.statusCode, inTime.body).toBe(204);
    });

    it('refuses a code of one realm under another (API and pages)', async () => {
        const other = await createRealm(app);
        const { response, email } = await register();
        const id = response.json<{ data: { id: string } }>().data.id;
        const code = codeOf(linkIn(await mail.mailTo(email), `${app.deps.config.publicUrl}/realms/`));
        const foreign = await app.request({ method: 'POST', url: `/realms/${other}/users/activate`, as: null, payload: { code } });
        expect(foreign.statusCode).toBe(400);
        const atRoot = await app.request({ method: 'POST', url: '/users/activate', as: null, payload: { code } });
        expect(atRoot.statusCode).toBe(400);
        expect((await app.request({ method: 'GET', url: `/realms/${other}/activate?code=${code}`, as: null })).statusCode).toBe(400);
        expect(await userRow(id)).toMatchObject({ activate_hash: sha256Hex(code) });
        // a user of this realm asking for a reset in another realm is unknown there: nothing is mailed
        const before = mail.received.length;
        expect((await forgot({ email }, other)).statusCode).toBe(202);
        await app.deps.mailer!.settled();
        expect(mail.received.length).toBe(before);
        // in its own realm the code still works
        expect((await app.request({ method: 'POST', url: `/realms/${realmName}/users/activate`, as: null, payload: { code } })).statusCode).toBe(200);
    });

    it('links "Forgot password?" from the sign-in page to a form that mails a reset link, with the same page for an unknown user', async () => {
        const world = await browserWorld(app);
        const client = browser(app);
        const signIn = await client.authorize(authorizeParams(world).params);
        expect(signIn.statusCode, signIn.body).toBe(200);
        const href = /<a href="([^"]+)">Forgot password\?<\/a>/.exec(signIn.body)?.[1];
        expect(href).toBe(`${app.deps.config.publicUrl}/realms/${world.realmName}/forgot-password`);
        const form = await client.get(pathOf(href!));
        expect(form.statusCode, form.body).toBe(200);
        expect(form.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(form.body).toContain('<label for="username">Username or email</label>');
        const withoutCsrf = await client.post(new URL(href!).pathname, { username: world.user.name });
        expect(withoutCsrf.statusCode).toBe(403);

        const before = mail.received.length;
        const known = await client.submit(form, { username: world.user.email });
        const unknown = await client.submit(await client.get(pathOf(href!)), { username: uniqueName('nobody') });
        for (const answer of [known, unknown]) {
            expect(answer.statusCode, answer.body).toBe(200);
            expect(answer.body).toContain('If an account matches');
        }
        await app.deps.mailer!.settled();
        const sent = mail.received.slice(before).filter((message) => /Subject: Reset your password/.test(message.text));
        expect(sent.map((message) => message.to)).toEqual([[world.user.email]]);
        linkIn(sent[0]!, `${app.deps.config.publicUrl}/realms/${world.realmName}/reset-password?code=`);
    });

    it('answers as the OpenAPI document says, successes and errors', async () => {
        type Documented = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>; components: object };
        const document = await app.json<Documented>({ method: 'GET', url: '/openapi.json', as: null }, 200);
        const ajv = new Ajv2020({ strict: false, validateFormats: false });
        const holds = (path: string, response: LightMyRequestResponse) => {
            const documented = document.paths[path]?.post?.responses[String(response.statusCode)];
            expect(documented, `POST ${path} documents ${response.statusCode}`).toBeDefined();
            const schema = documented!.content?.['application/json']?.schema;
            if (schema === undefined) return expect(response.body).toBe('');
            expect(ajv.validate({ ...schema, components: document.components }, response.json()), `${path}: ${ajv.errorsText()} in ${response.body}`).toBe(true);
        };
        const { response, name, email } = await register();
        holds('/realms/{realmId}/register', response);
        holds('/realms/{realmId}/register', (await register(await createRealm(app))).response);
        const code = codeOf(linkIn(await mail.mailTo(email), `${app.deps.config.publicUrl}/realms/`));
        holds('/realms/{realmId}/users/activate', await app.request({ method: 'POST', url: `/realms/${realmId}/users/activate`, as: null, payload: { code } }));
        holds('/users/activate', await app.request({ method: 'POST', url: '/users/activate', as: null, payload: { code } }));
        holds('/password-forgot', await app.request({ method: 'POST', url: '/password-forgot', as: null, payload: { name } }));
        holds('/realms/{realmId}/password-forgot', await forgot({ email: 'a b' }));
        holds('/password-reset', await app.request({ method: 'POST', url: '/password-reset', as: null, payload: { code, password: 'whatever-1' } }));
    });

    it('POST /users/@me/verification mails a link to one\'s own changed address; following it verifies the address again', async () => {
        const { response, name, password } = await register();
        const id = response.json<{ data: { id: string } }>().data.id;
        await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: { emailVerificationRequired: true } }, 200);
        await app.json({ method: 'POST', url: `/users/${id}`, payload: { emailVerified: true } }, 200);
        // a signed-in user holding user_self_manage (the self-service change) moves to a new address
        await app.json({ method: 'POST', url: '/user-permissions', payload: { userId: id, permissionId: (await app.deps.db.selectFrom('auth_permissions').select('id').where('name', '=', 'user_self_manage').where('realm_id', 'is', null).executeTakeFirstOrThrow()).id } }, 201);
        const session = await login(app, realmId, name, password);
        const moved = `${name}-moved@example.test`;
        const changed = await app.json<{ data: { emailVerified: boolean } }>({ method: 'POST', url: `/users/${id}`, payload: { email: moved, currentPassword: password }, as: session.bearer }, 200);
        expect(changed.data.emailVerified).toBe(false);
        // another realm's mount names no user of this caller (realm isolation): nothing is sent
        const foreignRealm = await createRealm(app);
        expect((await app.request({ method: 'POST', url: `/realms/${foreignRealm}/users/@me/verification`, as: session.bearer })).statusCode).toBe(404);
        const sent = await app.json<{ data: { email: string; emailVerificationRequired: boolean } }>({ method: 'POST', url: `/realms/${realmId}/users/@me/verification`, as: session.bearer }, 202);
        expect(sent.data).toEqual({ email: moved, emailVerificationRequired: true });
        const link = linkIn(await mail.mailTo(moved), `${app.deps.config.publicUrl}/realms/${realmName}/activate?code=`);
        await app.json({ method: 'POST', url: `/realms/${realmId}/users/activate`, as: null, payload: { code: codeOf(link) } }, 200);
        expect(Boolean((await userRow(id)).email_verified)).toBe(true);
        // verified already: nothing to send
        const again = await app.request({ method: 'POST', url: '/users/@me/verification', as: session.bearer });
        expect(again.statusCode).toBe(400);
        expect(again.json<{ issues: { path: string[] }[] }>().issues[0]!.path).toEqual(['email']);
        // a client has no address of its own
        expect((await app.request({ method: 'POST', url: '/users/@me/verification', as: null })).statusCode).toBe(401);
        await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: { emailVerificationRequired: false } }, 200);
    });

    it('keeps codes, hashes and the address out of default reads and events', async () => {
        const { response, email } = await register();
        const id = response.json<{ data: { id: string } }>().data.id;
        const read = await app.request({ method: 'GET', url: `/users/${id}?fields=+email` });
        expect(read.body).not.toMatch(/activate|reset|hash/i);
        const code = codeOf(linkIn(await mail.mailTo(email), `${app.deps.config.publicUrl}/realms/`));
        expect((await app.request({ method: 'POST', url: `/realms/${realmId}/users/activate`, as: null, payload: { code } })).statusCode).toBe(200);
        const events = await app.deps.db.selectFrom('auth_events').select(['name', 'data']).where('ref_id', '=', id).execute();
        expect(events.map((event) => event.name).sort()).toEqual(['user.created', 'user.updated']);
        const stored = JSON.stringify(events);
        for (const secret of [email, code, sha256Hex(code), 'first-password-1', '$2']) expect(stored).not.toContain(secret);
    });
});

describeEachDialect('mail routes without a relay', (dialect) => {
    const app = useTestApp(dialect);
    it('answer 503 mail_unavailable naming SMTP_URL', async () => {
        const realmId = await createRealm(app);
        await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: { registrationEnabled: true } }, 200);
        const register = await app.request({ method: 'POST', url: `/realms/${realmId}/register`, as: null, payload: { name: 'someone', email: 's@example.test', password: 'long-enough' } });
        const forgot = await app.request({ method: 'POST', url: '/password-forgot', as: null, payload: { name: 'admin' } });
        await app.json({ method: 'POST', url: '/users/admin', payload: { email: 'admin@example.test', emailVerified: false, currentPassword: 'start123' } }, 200);
        const verification = await app.request({ method: 'POST', url: '/users/@me/verification' });
        for (const response of [register, forgot, verification]) {
            expect(response.statusCode).toBe(503);
            // its own code: not the masked internal_error of a server fault (docs/reference/errors.md)
            expect(response.json<{ code: string; message: string }>()).toMatchObject({ statusCode: 503, code: 'mail_unavailable', message: expect.stringContaining('SMTP_URL') });
        }
        // nothing was written
        expect(await app.deps.db.selectFrom('auth_users').select('id').where('name', '=', 'someone').executeTakeFirst()).toBeUndefined();
    });

    it('show no "Forgot password?" link on the sign-in page, and no forgot-password form', async () => {
        const world = await browserWorld(app);
        const client = browser(app);
        const signIn = await client.authorize(authorizeParams(world).params);
        expect(signIn.statusCode, signIn.body).toBe(200);
        expect(signIn.body).toContain('<label for="password">Password</label>');
        expect(signIn.body).not.toContain('Forgot password');
        expect(signIn.body).not.toContain('forgot-password');
        const form = await client.get(`/realms/${world.realmName}/forgot-password`);
        expect(form.statusCode).toBe(503);
        expect(form.headers['content-type']).toContain('text/html');
        expect(form.body).not.toContain('<form');
    });
}, ['sqlite']);
