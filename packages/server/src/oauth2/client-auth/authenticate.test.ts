import { randomUUID } from 'node:crypto';
import { afterEach, expect, it, vi } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';

describeEachDialect('client authentication at /token: no enumeration by timing', (dialect) => {
    const app = useTestApp(dialect);
    afterEach(() => vi.restoreAllMocks());

    it('a wrong secret costs exactly one bcrypt verification whether the client is known or not', async () => {
        const realm = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: `timing-${randomUUID().slice(0, 8)}` } }, 201)).data;
        const known = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'known', secret: 'the-right-secret' },
        }, 201)).data;
        // the real hasher, counted: every bcrypt-cost verification goes through it
        const verify = vi.spyOn(app.deps.passwords, 'verify');
        const attempt = async (clientId: string) => {
            verify.mockClear();
            const response = await app.request({
                method: 'POST', url: '/token', as: null,
                payload: { grant_type: 'client_credentials', realm_id: realm.id, client_id: clientId, client_secret: 'a-wrong-secret' },
            });
            expect(response.statusCode, response.body).toBe(401);
            return { calls: verify.mock.calls.length, body: response.json() as unknown };
        };
        const unknown = await attempt(randomUUID());
        const wrong = await attempt(known.id);
        expect(unknown.calls).toBe(1);
        expect(wrong.calls).toBe(1);
        expect(wrong.body).toEqual(unknown.body);
    });
});
