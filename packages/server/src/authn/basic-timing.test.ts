import { randomUUID } from 'node:crypto';
import { afterEach, expect, it, vi } from 'vitest';
import { basicHeader, useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';

describeEachDialect('Basic authentication on API routes: no enumeration by timing', (dialect) => {
    const app = useTestApp(dialect);
    afterEach(() => vi.restoreAllMocks());

    it('a wrong secret costs exactly one bcrypt verification whether the name is known or not', async () => {
        const name = `timing-${randomUUID().slice(0, 8)}`;
        // a plain-secret client of the master realm: Basic names resolve there on unmounted routes
        await app.json({ method: 'POST', url: '/clients', payload: { name, secret: 'the-right-secret' } }, 201);
        const verify = vi.spyOn(app.deps.passwords, 'verify');
        const attempt = async (who: string, secret: string) => {
            verify.mockClear();
            const response = await app.request({ method: 'GET', url: '/users', as: basicHeader(who, secret) });
            return { status: response.statusCode, calls: verify.mock.calls.length, body: response.json() as unknown };
        };
        const unknown = await attempt(`nobody-${randomUUID().slice(0, 8)}`, 'a-wrong-secret');
        const wrong = await attempt(name, 'a-wrong-secret');
        expect(unknown.status).toBe(401);
        expect(wrong.status).toBe(401);
        expect(unknown.calls).toBe(1);
        expect(wrong.calls).toBe(1);
        expect(wrong.body).toEqual(unknown.body);
        // the right secret stays on the fast path: no bcrypt for a plain secret
        const right = await attempt(name, 'the-right-secret');
        expect(right.status).not.toBe(401);
        expect(right.calls).toBe(0);
    });
});
