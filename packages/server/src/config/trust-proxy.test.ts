import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';
import { fastifyTrustProxy, trustProxyWarning } from './trust-proxy.js';

describe('TRUST_PROXY (trusted proxies: only the addresses they added count)', () => {
    it('a production boot trusting every hop is warned, naming the risk and the fix; nothing else is', () => {
        const warning = trustProxyWarning(loadConfig({ NODE_ENV: 'production', TRUST_PROXY: 'true' }));
        expect(warning).toMatch(/X-Forwarded-For/);
        expect(warning).toMatch(/rate limit/);
        expect(warning).toMatch(/number of proxies|addresses/);
        expect(trustProxyWarning(loadConfig({ NODE_ENV: 'production' }))).toBe(warning);
        for (const env of [{ NODE_ENV: 'development', TRUST_PROXY: 'true' }, { NODE_ENV: 'production', TRUST_PROXY: '1' },
            { NODE_ENV: 'production', TRUST_PROXY: '10.0.0.0/8' }, { NODE_ENV: 'production', TRUST_PROXY: 'false' }]) {
            expect(trustProxyWarning(loadConfig(env)), JSON.stringify(env)).toBeNull();
        }
    });

    /** request.ip as Fastify derives it with the trustProxy app.ts gives it. */
    const ipFor = async (trustProxy: string, remoteAddress: string, forwarded: string) => {
        const app = Fastify({ trustProxy: fastifyTrustProxy(loadConfig({ TRUST_PROXY: trustProxy }).trustProxy) });
        app.get('/ip', (request) => ({ ip: request.ip }));
        try {
            const response = await app.inject({ method: 'GET', url: '/ip', remoteAddress, headers: { 'x-forwarded-for': forwarded } });
            return (response.json() as { ip: string }).ip;
        } finally {
            await app.close();
        }
    };

    it('with a hop count or an address list only the hops added by trusted proxies count: the rightmost untrusted address', async () => {
        // the client forges a leftmost entry; one trusted proxy appended the real client address
        expect(await ipFor('1', '10.0.0.5', '127.0.0.1, 198.51.100.7')).toBe('198.51.100.7');
        expect(await ipFor('2', '10.0.0.5', '127.0.0.1, 198.51.100.7, 10.0.0.9')).toBe('198.51.100.7');
        expect(await ipFor('10.0.0.0/8', '10.0.0.5', '127.0.0.1, 198.51.100.7, 10.0.0.9')).toBe('198.51.100.7');
        // a direct caller that is not a trusted proxy names nothing through the header
        expect(await ipFor('10.0.0.0/8', '203.0.113.4', '127.0.0.1')).toBe('203.0.113.4');
        expect(await ipFor('false', '203.0.113.4', '127.0.0.1')).toBe('203.0.113.4');
        // what the production warning is about: `true` takes the leftmost, caller-chosen entry
        expect(await ipFor('true', '203.0.113.4', '127.0.0.1, 198.51.100.7')).toBe('127.0.0.1');
    });
});
