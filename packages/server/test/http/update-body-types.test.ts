import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { resourceDefinitions } from '../../src/domains/registry.js';
import { createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

/**
 * Every update body is checked by its schema before authorization, on every
 * mount; a wrong-typed member answers 400 with issues, never 500 (it reached the access engine),
 * 200 (the nested mount ignored it) or 409 (an array taken as a realm move).
 */
const WRONG_REALM_IDS: unknown[] = [42, true, { $ne: null }, ['x']];

describeEachDialect('update bodies are validated before authorization (update bodies are validated before authorization)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    beforeAll(async () => {
        realm = await createRealm(app, 'types-a');
    });

    const updatable = () => resourceDefinitions(app.deps)
        .filter((definition) => (definition.writes ?? ['create', 'update', 'delete']).includes('update'))
        .filter((definition) => definition.spec.realm === 'required' || definition.spec.realm === 'nullable');

    it('a wrong-typed realmId answers 400 with issues on /coll/:id and /realms/:r/coll/:id of every collection', async () => {
        expect(updatable().length).toBeGreaterThan(3);
        for (const { spec } of updatable()) {
            for (const base of [`/${spec.collection}`, `/realms/${realm}/${spec.collection}`]) {
                for (const realmId of WRONG_REALM_IDS) {
                    const response = await app.request({ method: 'POST', url: `${base}/${randomUUID()}`, payload: { realmId } });
                    expect(response.statusCode, `${base} ${JSON.stringify(realmId)}`).toBe(400);
                    expect((response.json() as { issues?: unknown[] }).issues?.length, base).toBeGreaterThan(0);
                }
            }
        }
    });

    it('a wrong-typed realmId or configuration key leaves a policy unchanged on both mounts', async () => {
        const policy = (await app.json<{ data: Record<string, unknown> & { id: string } }>({
            method: 'POST', url: '/policies', payload: { type: 'attributes', name: 'typed', realmId: realm, query: { name: { $eq: 'a' } } },
        }, 201)).data;
        const bodies: Record<string, unknown>[] = [
            ...WRONG_REALM_IDS.map((realmId) => ({ realmId })),
            { query: 42 }, { query: ['x'] }, { query: true }, { invert: 'yes' }, { parentId: { $ne: null } },
        ];
        for (const base of ['/policies', `/realms/${realm}/policies`]) {
            for (const payload of bodies) {
                const response = await app.request({ method: 'POST', url: `${base}/${policy.id}`, payload });
                expect(response.statusCode, `${base} ${JSON.stringify(payload)}`).toBe(400);
                expect((response.json() as { issues?: unknown[] }).issues?.length, JSON.stringify(payload)).toBeGreaterThan(0);
            }
        }
        const after = (await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/policies/${policy.id}` }, 200)).data;
        expect(after).toEqual(policy);
    });
});
