import { beforeAll, expect, it } from 'vitest';
import { createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

/**
 * An authenticated answer may carry a secret or personal data (a client secret,
 * a rotated secret, an email), so no cache may keep it (RFC 9111 §5.2.2.5 no-store); routes that
 * say otherwise keep their own policy.
 */
describeEachDialect('authenticated answers are never cached (authenticated answers carry Cache-Control: no-store)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    let client: string;
    let user: string;
    beforeAll(async () => {
        realm = await createRealm(app, 'cache-a');
        client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'cached', realmId: realm, secret: 'a-client-secret' } }, 201)).data.id;
        user = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: 'cached', realmId: realm, email: 'cached@example.com' } }, 201)).data.id;
    });

    it('secrets, rotated secrets, emails and every other authenticated answer carry no-store', async () => {
        const answers = [
            await app.request({ method: 'GET', url: `/clients/${client}?fields=%2Bsecret` }),
            await app.request({ method: 'POST', url: `/clients/${client}/secret`, payload: {} }),
            await app.request({ method: 'GET', url: `/users/${user}?fields=%2Bemail` }),
            await app.request({ method: 'GET', url: `/realms/${realm}/users` }),
            await app.request({ method: 'GET', url: '/users/@me' }),
            await app.request({ method: 'GET', url: '/users', as: null }),
        ];
        for (const answer of answers) {
            expect(answer.statusCode).toBeLessThan(500);
            expect(answer.headers['cache-control'], answer.body.slice(0, 80)).toBe('no-store');
        }
    });

    it('the catalog, discovery and JWKS keep their own caching', async () => {
        expect((await app.request({ method: 'GET', url: '/authorization' })).headers['cache-control']).toBe('private, no-cache');
        expect((await app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null })).headers['cache-control']).toBe('public, max-age=60');
        expect((await app.request({ method: 'GET', url: `/realms/${realm}/jwks`, as: null })).headers['cache-control']).toBe('public, max-age=60');
    });
});
