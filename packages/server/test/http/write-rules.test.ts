import { beforeAll, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { bootstrap } from '../../src/provisioning/bootstrap.js';
import { createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

describeEachDialect('write rules: echoes, events, production warning', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    beforeAll(async () => {
        realmA = await createRealm(app, 'realm-a');
    });

    it('a field echoed back unchanged is not written (no update, no event)', async () => {
        const role = (await app.json<{ data: { id: string; name: string; updatedAt: string } }>({ method: 'POST', url: '/roles', payload: { name: 'echo', realmId: realmA } }, 201)).data;
        await new Promise((resolve) => setTimeout(resolve, 15));
        const echoed = (await app.json<{ data: { updatedAt: string } }>({ method: 'POST', url: `/roles/${role.id}`, payload: { name: 'echo', displayName: null } }, 200)).data;
        expect(echoed.updatedAt).toBe(role.updatedAt);
        const events = await app.deps.db.selectFrom('auth_events').select('name').where('ref_id', '=', role.id).execute();
        expect(events.map((event) => event.name)).toEqual(['role.created']);
    });

    it('events name the actor and request and never carry a withheld column (spec Events 5)', async () => {
        const user = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: 'ev-user', realmId: realmA, email: 'ev@example.com', password: 'a-password' } }, 201)).data;
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { email: 'changed@example.com', password: 'another-password' } }, 200);
        const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'ev-client', realmId: realmA, secret: 'ev-secret-value' } }, 201)).data;
        await app.json({ method: 'POST', url: `/clients/${client.id}/secret`, payload: {} }, 200);
        const events = await app.deps.db.selectFrom('auth_events').selectAll().where('ref_id', 'in', [user.id, client.id]).execute();
        expect(events.length).toBeGreaterThanOrEqual(4);
        for (const event of events) {
            const text = JSON.stringify(event);
            for (const secret of ['ev@example.com', 'changed@example.com', 'a-password', 'another-password', 'ev-secret-value', '$2b$']) {
                expect(text, event.name).not.toContain(secret);
            }
            expect(event.actor_type).toBe('user');
            expect(event.request_method).toMatch(/POST/);
        }
        expect(events.map((event) => event.name)).toContain('clientSecretRotated');
    });

    it('warns when a production process keeps the default admin password (spec Authentication rule 20)', async () => {
        const warn = vi.fn();
        const logger = { warn, info: vi.fn(), error: vi.fn(), debug: vi.fn(), child: () => logger } as unknown as FastifyBaseLogger;
        await bootstrap({ ...app.deps, config: { ...app.deps.config, env: 'production' } }, logger);
        expect(warn).toHaveBeenCalledWith(expect.stringContaining('still has the default password'));
        warn.mockClear();
        await bootstrap({ ...app.deps, config: { ...app.deps.config, env: 'development' } }, logger);
        expect(warn).not.toHaveBeenCalled();
    });
});
