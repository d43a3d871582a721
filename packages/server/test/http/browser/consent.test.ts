import { expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, codeRow, hiddenFields, locationParams } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';

/*
 * Consent is asked when the client requests scopes the user has not granted it,
 * remembered per user and client, skipped for a first-party client; Deny answers access_denied.
 */
describeEachDialect('browser sign-in: consent', (dialect) => {
    const app = useTestApp(dialect);

    const consentPage = async (scope = 'openid profile email') => {
        const world = await browserWorld(app, { displayName: 'Third Party' });
        const client = browser(app);
        const { params } = authorizeParams(world, { scope });
        const page = await client.submit(await client.authorize(params), { username: world.user.name, password: world.user.password });
        return { world, client, params, page };
    };

    it('asks a third-party client\'s consent with its name, the scopes and Allow / Deny buttons', async () => {
        const { page, world } = await consentPage();
        expect(page.statusCode, page.body).toBe(200);
        expect(page.body).toContain('Third Party wants to access your account');
        expect(page.body).toContain(world.user.name);
        for (const scope of ['openid', 'profile', 'email']) expect(page.body).toContain(`<code>${scope}</code>`);
        expect(page.body).toContain('name="decision" value="allow">Allow</button>');
        expect(page.body).toContain('name="decision" value="deny" class="secondary">Deny</button>');
        expect(page.headers['x-frame-options']).toBe('DENY');
        expect(hiddenFields(page.body).csrf).toBeDefined();
    });

    it('Allow answers a code and is remembered: the next request with those scopes goes straight through', async () => {
        const { page, client, world, params } = await consentPage('openid email');
        const allowed = await client.submit(page, { decision: 'allow' });
        const { params: response } = locationParams(allowed);
        expect(response.state).toBe(params.state);
        expect((await codeRow(app, response.code!))?.scope).toBe('openid email');
        const stored = await app.deps.db.selectFrom('auth_user_consents').selectAll().where('user_id', '=', world.user.id).executeTakeFirstOrThrow();
        expect(stored.client_id).toBe(world.clientId);
        expect(stored.scopes.split(' ').sort()).toEqual(['email', 'openid']);

        // same scopes: no page; a new scope: asked again; prompt=consent: asked again
        expect(locationParams(await client.authorize(authorizeParams(world, { scope: 'openid' }).params)).params.code).toBeDefined();
        const more = await client.authorize(authorizeParams(world, { scope: 'openid profile' }).params);
        expect(more.statusCode).toBe(200);
        expect(more.body).toContain('<code>profile</code>');
        const forced = await client.authorize(authorizeParams(world, { scope: 'openid', prompt: 'consent' }).params);
        expect(forced.body).toContain('name="decision" value="allow"');
        // prompt=none while consent is needed: consent_required at the redirect URI
        const silent = await client.authorize(authorizeParams(world, { scope: 'openid profile', prompt: 'none' }).params);
        expect(locationParams(silent).params.error).toBe('consent_required');
    });

    it('Deny answers access_denied with state and iss, and records nothing', async () => {
        const { page, client, world, params } = await consentPage();
        const { base, params: response } = locationParams(await client.submit(page, { decision: 'deny' }));
        expect(base).toBe(world.redirectUri);
        expect(response).toMatchObject({ error: 'access_denied', state: params.state, iss: `${app.deps.config.publicUrl}/realms/${world.realmName}` });
        expect(response.code).toBeUndefined();
        expect(await app.deps.db.selectFrom('auth_user_consents').select('id').where('user_id', '=', world.user.id).execute()).toEqual([]);
    });

    it('never asks for a first-party client, and an update can mark a client first-party', async () => {
        const { page, client, world } = await consentPage();
        expect(page.body).toContain('name="decision"');
        const updated = await app.json<{ data: { firstParty: boolean } }>({ method: 'POST', url: `/clients/${world.clientId}`, payload: { firstParty: true } }, 200);
        expect(updated.data.firstParty).toBe(true);
        const answer = await client.authorize(authorizeParams(world, { scope: 'openid profile email' }).params);
        expect(locationParams(answer).params.code).toBeDefined();
    });

    it('refuses a consent form without the CSRF token, with a wrong one, or from a foreign origin', async () => {
        const { page, client } = await consentPage();
        const fields = hiddenFields(page.body);
        for (const [extra, headers] of [
            [{ csrf: '' }, {}],
            [{ csrf: 'A'.repeat(43) }, {}],
            [{}, { origin: 'https://evil.example' }],
        ] as const) {
            const answer = await client.post('/authorize/consent', { ...fields, ...extra, decision: 'allow' }, headers);
            expect(answer.statusCode, answer.body).toBe(403);
            expect(answer.headers.location).toBeUndefined();
        }
    });

    it('firstParty defaults to false and is part of the client record', async () => {
        const world = await browserWorld(app);
        const read = await app.json<{ data: { firstParty: boolean } }>({ method: 'GET', url: `/clients/${world.clientId}` }, 200);
        expect(read.data.firstParty).toBe(false);
        const created = await app.json<{ data: { firstParty: boolean } }>({ method: 'POST', url: '/clients', payload: { name: `fp-${world.realmName}`, realmId: world.realmId, firstParty: true } }, 201);
        expect(created.data.firstParty).toBe(true);
        const refused = await app.request({ method: 'POST', url: '/clients', payload: { name: `fp2-${world.realmName}`, realmId: world.realmId, firstParty: 'yes' } });
        expect(refused.statusCode).toBe(400);
    });
});
