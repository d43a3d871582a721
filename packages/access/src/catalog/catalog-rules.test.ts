import { describe, expect, it } from 'vitest';
import type { RealmScope } from '@realmgate/core';
import { AccessErrorCode, BuiltInPolicyType, WITHHELD_POLICY_TYPE, createAuthorizationEvaluator, realmScopeReaches } from '../index.js';
import { REALM_A, REALM_B, catalog, definition, grant, user } from '../../test/fixtures.js';

const DENIED = { code: 'permission_denied' };
const RM = BuiltInPolicyType.REALM_MATCH;

describe('authorization catalog rules', () => {
    it('catalog rule 1: a definition with policies null is listed, denies and drops every grant of it', async () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog([definition('user_read', { policies: null }), definition('user_update')]),
            grants: [grant('user_read', { realm_scope: 'any' }), grant('user_update')],
            identity: user(),
        });
        await expect(ev.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
        await expect(ev.preEvaluate({ name: 'user_read' })).rejects.toMatchObject(DENIED);
        expect(ev.compile({ name: 'user_read' })).toEqual({ type: 'deny' });
        await expect(ev.evaluate({ name: 'user_update', data: { [RM]: REALM_A } })).resolves.toBeUndefined();
    });

    it('catalog rule 2: a definition absent from the copy denies a name-only question without reporting stale', async () => {
        const ev = createAuthorizationEvaluator({ catalog: catalog([definition('user_read')]), grants: [], identity: user() });
        await expect(ev.evaluate({ name: 'brand_new_permission' })).rejects.toMatchObject(DENIED);
        expect(ev.compile({ name: 'brand_new_permission' })).toEqual({ type: 'deny' });
    });

    it('catalog rule 3: an outside-reach definition denies and a withheld tree drops the grants naming it', async () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog(
                [definition('foreign_read', { realm_id: REALM_B, policies: null }), definition('user_read')],
                { 'p-foreign': { type: WITHHELD_POLICY_TYPE, invert: false } },
            ),
            grants: [
                grant('foreign_read', { realm_id: REALM_B, realm_scope: 'any' }),
                grant('user_read', { realm_scope: 'any', policies: ['p-foreign'] }),
            ],
            identity: user(),
        });
        await expect(ev.evaluate({ name: 'foreign_read', realmId: REALM_B })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: 'user_read', data: { [RM]: REALM_B } })).rejects.toMatchObject(DENIED);
    });

    it('catalog rule 4: a tree this copy cannot project denies the definitions referencing it and nothing else', async () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog(
                [
                    definition('geo_read', { policies: ['system.default', 'p-geo'] }),
                    definition('regex_read', { policies: ['p-regex'] }),
                    definition('user_read'),
                ],
                {
                    'p-geo': { type: 'geoFence', lat: 1, lng: 2 },
                    'p-regex': { type: 'attributes', query: { name: { $regex: '^a' } } },
                },
            ),
            grants: [grant('geo_read', { realm_scope: 'any' }), grant('regex_read'), grant('user_read')],
            identity: user(),
        });
        await expect(ev.evaluate({ name: 'geo_read' })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: 'regex_read', data: { attributes: { name: 'abc' } } })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).resolves.toBeUndefined();
    });
});

describe('grant rules', () => {
    it('grant rule 1: one entry per grant; a repeated name is satisfied by any of its grants', async () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog([definition('role_read')], { 'p-red': { type: 'attributes', query: { color: 'red' } } }),
            grants: [
                grant('role_read', { realm_scope: 'own' }),
                grant('role_read', { realm_scope: 'any', policies: ['p-red'] }),
            ],
            identity: user(REALM_A),
        });
        await expect(ev.evaluate({ name: 'role_read', data: { [RM]: REALM_A, attributes: { color: 'blue' } } })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: 'role_read', data: { [RM]: REALM_B, attributes: { color: 'red' } } })).resolves.toBeUndefined();
        // each grant's reach is paired with its own policies: the own grant cannot lend its freedom to realm B
        await expect(ev.evaluate({ name: 'role_read', data: { [RM]: REALM_B, attributes: { color: 'blue' } } })).rejects.toMatchObject(DENIED);
    });

    it('grant rule 2: a grant of a client-owned definition never satisfies the global definition of the same name', async () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog([definition('item_read'), definition('item_read', { client_id: 'c-api' })]),
            grants: [grant('item_read', { client_id: 'c-api', realm_scope: 'any' })],
            identity: user(),
        });
        await expect(ev.evaluate({ name: 'item_read', clientId: 'c-api' })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: 'item_read' })).rejects.toMatchObject(DENIED);
    });

    it('grant rule 3: a grant whose junction tree the catalog cannot carry is dropped', async () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog([definition('user_read')], { 'p-withheld': { type: WITHHELD_POLICY_TYPE } }),
            grants: [grant('user_read', { policies: ['p-withheld'] })],
            identity: user(),
        });
        await expect(ev.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
    });

    it('grant rule 4: every reported grant counts — the library never narrows grants by token scope', async () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog([definition('user_read'), definition('client_read')]),
            grants: [grant('user_read'), grant('client_read')],
            identity: user(),
        });
        await expect(ev.evaluate({ name: ['user_read', 'client_read'], data: { [RM]: REALM_A } })).resolves.toBeUndefined();
    });

    it('grant rule 5: the former singular policy field is refused; policies is required', () => {
        expect(() => createAuthorizationEvaluator({
            catalog: catalog([definition('user_read')]),
            grants: [{ name: 'user_read', realm_id: null, client_id: null, realm_scope: 'own', policy: null }],
            identity: user(),
        })).toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_GRANTS, message: expect.stringContaining('grants[0].policies') }));
    });

    it('grant realm_scope defaults to own when absent and refuses unknown values', async () => {
        const cat = catalog([definition('user_read')]);
        const { realm_scope: _s, ...bare } = grant('user_read');
        const ev = createAuthorizationEvaluator({ catalog: cat, grants: [bare], identity: user(REALM_A) });
        await expect(ev.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: 'user_read', data: { [RM]: null } })).rejects.toMatchObject(DENIED);
        expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [grant('user_read', { realm_scope: 'global' as never })], identity: user() }))
            .toThrow(/grants\[0\]\.realm_scope/);
    });
});

describe('realm reach values', () => {
    // [scope, resource realm, actor realm, expected]
    const table: [RealmScope, string | null, string | null, boolean][] = [
        ['own', REALM_A, REALM_A, true],
        ['own', REALM_B, REALM_A, false],
        ['own', null, REALM_A, false],
        ['ownOrNull', REALM_A, REALM_A, true],
        ['ownOrNull', null, REALM_A, true],
        ['ownOrNull', REALM_B, REALM_A, false],
        ['any', REALM_A, REALM_A, true],
        ['any', REALM_B, REALM_A, true],
        ['any', null, REALM_A, true],
        ['none', REALM_A, REALM_A, false],
        ['none', null, REALM_A, false],
        // a realm-less actor satisfies neither own nor ownOrNull
        ['own', REALM_A, null, false],
        ['ownOrNull', null, null, false],
        ['any', REALM_B, null, true],
    ];

    it.each(table)('%s reaching resource realm %s from actor realm %s → %s', async (scope, resource, actorRealm, expected) => {
        expect(realmScopeReaches(scope, resource, user(actorRealm))).toBe(expected);
        const ev = createAuthorizationEvaluator({
            catalog: catalog([definition('role_read')]),
            grants: [grant('role_read', { realm_scope: scope })],
            identity: user(actorRealm),
        });
        expect(ev.allows({ name: 'role_read', data: { [RM]: resource } })).toBe(expected);
    });

    it('master-realm membership adds no bypass', () => {
        const master = { id: 'u-admin', type: 'user' as const, realmId: 'master-id', realmName: 'master', clientId: null };
        expect(realmScopeReaches('own', REALM_B, master)).toBe(false);
        expect(realmScopeReaches('ownOrNull', REALM_B, master)).toBe(false);
    });

    it('a resource realm given by name matches the actor realm name; a multi-realm resource needs every realm', () => {
        expect(realmScopeReaches('own', 'name-a', user(REALM_A))).toBe(true);
        expect(realmScopeReaches('ownOrNull', [REALM_A, null], user(REALM_A))).toBe(true);
        expect(realmScopeReaches('ownOrNull', [REALM_A, REALM_B], user(REALM_A))).toBe(false);
        expect(realmScopeReaches('own', [], user(REALM_A))).toBe(false);
    });
});
