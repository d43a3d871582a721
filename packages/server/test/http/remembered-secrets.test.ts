import { expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

/**
 * A verified password or hashed client secret is remembered per process (secrets/passwords.ts);
 * a changed password, a rotated secret and a deactivation must still take effect on the very next
 * request.
 */
describeEachDialect('remembered secret verifications never outlive a change', (dialect) => {
    const app = useTestApp(dialect);

    it('a user password: remembered after success, forgotten by a change and by deactivation', async () => {
        const user = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: 'remembered', password: 'old-password' } }, 201)).data;
        const me = (password: string) => app.request({ method: 'GET', url: '/users/@me', as: app.basic(user.id, password) });
        expect((await me('old-password')).statusCode).toBe(200);
        expect((await me('old-password')).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { password: 'new-password' } }, 200);
        expect((await me('old-password')).statusCode).toBe(401);
        expect((await me('new-password')).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { active: false } }, 200);
        expect((await me('new-password')).statusCode).toBe(401);
    });

    it('a hashed client secret: remembered after success, forgotten by rotation and by deactivation', async () => {
        const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'remembered-client' } }, 201)).data;
        const first = await app.json<{ meta: { secret: string } }>({ method: 'POST', url: `/clients/${client.id}/secret`, payload: { mode: 'hashed' } }, 200);
        const grant = (secret: string) => app.request({
            method: 'POST', url: '/token', as: app.basic(client.id, secret), payload: { grant_type: 'client_credentials' },
        });
        expect((await grant(first.meta.secret)).statusCode).toBe(200);
        expect((await grant(first.meta.secret)).statusCode).toBe(200);
        const second = await app.json<{ meta: { secret: string } }>({ method: 'POST', url: `/clients/${client.id}/secret`, payload: { mode: 'hashed' } }, 200);
        expect((await grant(first.meta.secret)).statusCode).toBe(401);
        expect((await grant(second.meta.secret)).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { active: false } }, 200);
        expect((await grant(second.meta.secret)).statusCode).toBe(401);
    });
});
