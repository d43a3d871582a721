import { describe, expect, it } from 'vitest';
import {
    AccessErrorCode,
    BuiltInPolicyType,
    createAuthorizationEvaluator,
    isAuthorizationCatalogStaleError,
} from '../index.js';
import { REALM_A, REALM_B, catalog, client, definition, grant, user } from '../../test/fixtures.js';

const DENIED = { code: 'permission_denied' };
const RM = BuiltInPolicyType.REALM_MATCH;

describe('catalog consumer rules', () => {
    it('consumer rule 1: an evaluator is built per subject from { catalog, grants, identity } and decides for it', async () => {
        const cat = catalog([definition('user_read')]);
        const alice = createAuthorizationEvaluator({ catalog: cat, grants: [grant('user_read')], identity: user(REALM_A) });
        const bob = createAuthorizationEvaluator({ catalog: cat, grants: [], identity: user(REALM_A, 'u-2') });
        await expect(alice.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).resolves.toBeUndefined();
        await expect(bob.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
        expect(alice.identity).toEqual(user(REALM_A));
    });

    it('consumer rule 1: clientId is the subject id for a client and null for a user', () => {
        const cat = catalog([definition('user_read')]);
        expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [], identity: client(REALM_A) })).not.toThrow();
        expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [], identity: { ...client(), clientId: 'other' } }))
            .toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_IDENTITY, message: expect.stringContaining('identity.clientId') }));
        expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [], identity: { ...user(), clientId: 'c-1' } }))
            .toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_IDENTITY }));
    });

    it('consumer rule 2: an empty grant list is passed explicitly and denies every bound permission', async () => {
        const ev = createAuthorizationEvaluator({ catalog: catalog([definition('user_read')]), grants: [], identity: user() });
        await expect(ev.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
        await expect(ev.preEvaluate({ name: 'user_read' })).rejects.toMatchObject(DENIED);
    });

    describe('consumer rule 3: evaluator creation rejects', () => {
        const cat = catalog([definition('user_read')]);
        it('missing fields of the catalog, its entries and the identity', () => {
            expect(() => createAuthorizationEvaluator({ catalog: undefined, grants: [], identity: user() }))
                .toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_CATALOG }));
            expect(() => createAuthorizationEvaluator({ catalog: { permissions: [] }, grants: [], identity: user() }))
                .toThrow(/catalog\.policies/);
            const { realm_id: _omitted, ...entry } = definition('user_read');
            expect(() => createAuthorizationEvaluator({ catalog: catalog([entry as never]), grants: [], identity: user() }))
                .toThrow(/catalog\.permissions\[0\]\.realm_id: is required/);
            const { realmName: _name, ...identity } = user();
            expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [], identity: identity as never }))
                .toThrow(/identity\.realmName: is required/);
            expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [{ name: 'user_read', realm_id: null, policies: [] }], identity: user() }))
                .toThrow(/grants\[0\]\.client_id: is required/);
        });
        it('a definition referencing an undeclared policy id', () => {
            expect(() => createAuthorizationEvaluator({ catalog: catalog([definition('x', { policies: ['nope'] })]), grants: [], identity: user() }))
                .toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_CATALOG, message: expect.stringContaining('undeclared policy "nope"') }));
        });
        it('a duplicate permission namespace', () => {
            const duplicate = catalog([definition('user_read'), definition('user_read')]);
            expect(() => createAuthorizationEvaluator({ catalog: duplicate, grants: [], identity: user() }))
                .toThrow(/duplicate permission namespace/);
            // the same name in another realm or client namespace is not a duplicate
            const scoped = catalog([definition('user_read'), definition('user_read', { realm_id: REALM_A }), definition('user_read', { client_id: 'c-1' })]);
            expect(() => createAuthorizationEvaluator({ catalog: scoped, grants: [], identity: user() })).not.toThrow();
        });
        it('an identity that is neither a user nor a client', () => {
            expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [], identity: { ...user(), type: 'robot' as never } }))
                .toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_IDENTITY, message: expect.stringContaining('identity.type') }));
        });
        it('grants supplied without an identity', () => {
            expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [grant('user_read')] }))
                .toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_GRANTS }));
            expect(() => createAuthorizationEvaluator({ catalog: cat, grants: [], identity: null }))
                .toThrow(/without an identity/);
        });
        it('an identity with no grant list', () => {
            expect(() => createAuthorizationEvaluator({ catalog: cat, identity: user() }))
                .toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_GRANTS, message: expect.stringContaining('grant list') }));
        });
    });

    it('consumer rule 4: a grant naming an unknown definition or policy throws the stale error, recognised without instanceof', () => {
        const cat = catalog([definition('user_read')]);
        const unknownDefinition = () => createAuthorizationEvaluator({ catalog: cat, grants: [grant('user_write')], identity: user() });
        const unknownPolicy = () => createAuthorizationEvaluator({ catalog: cat, grants: [grant('user_read', { policies: ['p-new'] })], identity: user() });
        for (const build of [unknownDefinition, unknownPolicy]) {
            let caught: unknown;
            try {
                build();
            } catch (error) {
                caught = error;
            }
            expect(isAuthorizationCatalogStaleError(caught)).toBe(true);
        }
        // another bundled copy's error is recognised by its code alone
        expect(isAuthorizationCatalogStaleError({ code: 'authorization_catalog_stale', message: 'from another copy' })).toBe(true);
        expect(isAuthorizationCatalogStaleError(new Error('authorization_catalog_stale'))).toBe(false);
        expect(isAuthorizationCatalogStaleError(null)).toBe(false);
        // refetching a catalog that carries the definition fixes it
        const fresh = catalog([definition('user_read'), definition('user_write')]);
        expect(() => createAuthorizationEvaluator({ catalog: fresh, grants: [grant('user_write')], identity: user() })).not.toThrow();
    });

    it('consumer rule 5: a grant of a policies-null definition is left out and never stale; binding or unprojectable junctions are left out', async () => {
        const cat = catalog([
            definition('withheld', { policies: null }),
            definition('user_read'),
        ], {
            'p-binding': { type: 'permissionBinding' },
            'p-future': { type: 'geoFence', radius: 5 },
        });
        const ev = createAuthorizationEvaluator({
            catalog: cat,
            grants: [
                grant('withheld'),
                grant('user_read', { policies: ['p-binding'] }),
                grant('user_read', { policies: ['p-future'] }),
            ],
            identity: user(),
        });
        await expect(ev.evaluate({ name: 'withheld' })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
    });

    it('consumer rule 6: an anonymous caller passes only definitions that need no identity', async () => {
        const cat = catalog([
            definition('user_read'),
            definition('open', { policies: [] }),
            definition('office_hours', { policies: ['p-date'] }),
        ], { 'p-date': { type: 'date', start: '2026-01-01', end: '2026-12-31' } });
        const clock = () => Date.parse('2026-06-01T12:00:00Z');
        const anonymous = createAuthorizationEvaluator({ catalog: cat, clock });
        expect(anonymous.identity).toBeNull();
        await expect(anonymous.evaluate({ name: 'open' })).resolves.toBeUndefined();
        await expect(anonymous.evaluate({ name: 'office_hours' })).resolves.toBeUndefined();
        await expect(anonymous.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
        await expect(anonymous.preEvaluate({ name: 'user_read' })).rejects.toMatchObject(DENIED);
        expect(anonymous.compile({ name: 'user_read' })).toEqual({ type: 'deny' });
        // no identity data may be injected through data
        await expect(anonymous.evaluate({ name: 'user_read', data: { identity: user() } as never }))
            .rejects.toMatchObject({ code: AccessErrorCode.INVALID_INPUT, message: expect.stringContaining('data.identity') });
    });

    it('consumer rule 7: realmId and clientId name the definition; evaluate needs every name, evaluateOneOf any', async () => {
        const cat = catalog([
            definition('user_read'),
            definition('user_read', { realm_id: REALM_A }),
            definition('user_read', { client_id: 'c-9' }),
            definition('user_update'),
        ]);
        const ev = createAuthorizationEvaluator({
            catalog: cat,
            grants: [grant('user_read', { realm_id: REALM_A }), grant('user_update', { realm_scope: 'any' })],
            identity: user(),
        });
        const data = { [RM]: REALM_A };
        await expect(ev.evaluate({ name: 'user_read', realmId: REALM_A, data })).resolves.toBeUndefined();
        // the global and the client-owned definitions are other permissions
        await expect(ev.evaluate({ name: 'user_read', data })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: 'user_read', clientId: 'c-9', data })).rejects.toMatchObject(DENIED);
        // realmId names the definition, not the resource: a row of realm B is still judged by data
        await expect(ev.evaluate({ name: 'user_read', realmId: REALM_A, data: { [RM]: REALM_B } })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: ['user_update', 'user_read'], data })).rejects.toMatchObject({ ...DENIED, permissions: ['user_update', 'user_read'] });
        await expect(ev.evaluateOneOf({ name: ['user_read', 'user_update'], data })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: [], data })).rejects.toMatchObject({ code: AccessErrorCode.INVALID_INPUT, message: expect.stringContaining('name') });
        expect(ev.allows({ name: 'user_update', data })).toBe(true);
    });

    it('consumer rule 8: preEvaluate lets a pending policy pass and settles reach only when REALM_MATCH is present', async () => {
        const cat = catalog([definition('user_update')], { 'p-own-rows': { type: 'attributes', query: { ownerId: 'u-1' } } });
        const ev = createAuthorizationEvaluator({
            catalog: cat,
            grants: [grant('user_update', { policies: ['p-own-rows'] })],
            identity: user(),
        });
        await expect(ev.preEvaluate({ name: 'user_update' })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: 'user_update', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
        await expect(ev.preEvaluate({ name: 'user_update', data: { [RM]: REALM_B } })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: 'user_update', data: { [RM]: REALM_A, attributes: { ownerId: 'u-1' } } })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: 'user_update', data: { [RM]: REALM_A, attributes: { ownerId: 'u-2' } } })).rejects.toMatchObject(DENIED);
        await expect(ev.preEvaluateOneOf({ name: ['nope', 'user_update'] })).resolves.toBeUndefined();
    });

    it('consumer rule 9: options.decisionStrategy is forwarded; include, exclude and pending are refused', async () => {
        const cat = catalog([definition('report_read', { policies: ['p-yes', 'p-no'] })], {
            'p-yes': { type: 'identity' },
            'p-no': { type: 'identity', types: ['client'] },
        });
        const ev = createAuthorizationEvaluator({ catalog: cat, grants: [], identity: user() });
        await expect(ev.evaluate({ name: 'report_read' })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: 'report_read', options: { decisionStrategy: 'affirmative' } })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: 'report_read', options: { decisionStrategy: 'consensus' } })).rejects.toMatchObject(DENIED);
        for (const option of ['include', 'exclude', 'pending']) {
            await expect(ev.evaluate({ name: 'report_read', options: { [option]: ['identity'] } as never }))
                .rejects.toMatchObject({ code: AccessErrorCode.OPTION_REFUSED, message: expect.stringContaining(`options.${option}`) });
            expect(() => ev.compile({ name: 'report_read', options: { [option]: true } as never })).toThrow(/is refused/);
        }
    });

    it('consumer rule 10: a forgotten realm value neutral-passes; a realm column passes its value, null included', async () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog([definition('role_read')]),
            grants: [grant('role_read', { realm_scope: 'own' })],
            identity: user(REALM_A),
        });
        // a resource with a realm column: the value decides (own never reaches global rows)
        await expect(ev.evaluate({ name: 'role_read', data: { [RM]: REALM_A } })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: 'role_read', data: { [RM]: REALM_B } })).rejects.toMatchObject(DENIED);
        await expect(ev.evaluate({ name: 'role_read', data: { [RM]: null } })).rejects.toMatchObject(DENIED);
        // no realm dimension: no key, reach neutral-passes — and so does a forgotten value (the trap)
        await expect(ev.evaluate({ name: 'role_read' })).resolves.toBeUndefined();
        await expect(ev.evaluate({ name: 'role_read', data: { [RM]: undefined } })).resolves.toBeUndefined();
        // a typo never silently counts as "no realm dimension"
        await expect(ev.evaluate({ name: 'role_read', data: { realm_match: REALM_B } as never })).rejects.toMatchObject({ code: AccessErrorCode.INVALID_INPUT });
    });

    it('consumer rule 12: a bearer without the global scope is evaluated without identity and loses every system.default permission', async () => {
        const cat = catalog([definition('user_read'), definition('public_read', { policies: [] })]);
        // the consumer applies the scope check itself: no identity, no grants
        const scoped = createAuthorizationEvaluator({ catalog: cat });
        await expect(scoped.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
        await expect(scoped.evaluate({ name: 'public_read' })).resolves.toBeUndefined();
    });

    it('consumer rule 14: one catalog object serves many evaluators; a revoked grant is gone on the next build', async () => {
        const cat = catalog([definition('user_read')]);
        const before = createAuthorizationEvaluator({ catalog: cat, grants: [grant('user_read')], identity: user() });
        const after = createAuthorizationEvaluator({ catalog: cat, grants: [], identity: user() });
        await expect(before.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).resolves.toBeUndefined();
        await expect(after.evaluate({ name: 'user_read', data: { [RM]: REALM_A } })).rejects.toMatchObject(DENIED);
    });
});
