import { RealmScope } from '@realmgate/core';
import { describe, expect, it } from 'vitest';
import { realmsReachedBy } from './delegation.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('realmsReachedBy (spec "Realm reach values")', () => {
    it('maps a grant of a realm holder to the realms it reaches', () => {
        expect(realmsReachedBy(RealmScope.NONE, 'r1')).toEqual([]);
        expect(realmsReachedBy(RealmScope.OWN, 'r1')).toEqual(['r1']);
        expect(realmsReachedBy(RealmScope.OWN_OR_NULL, 'r1')).toEqual(['r1', null]);
        const any = realmsReachedBy(RealmScope.ANY, 'r1');
        expect(any.slice(0, 2)).toEqual(['r1', null]);
        // a realm nobody owns: only an `any` grant of the actor reaches it
        expect(any[2]).toMatch(UUID);
    });

    it('stands a fresh realm in for the own realm of a global holder, held in every realm', () => {
        const [own] = realmsReachedBy(RealmScope.OWN, null);
        expect(own).toMatch(UUID);
        const [first] = realmsReachedBy(RealmScope.OWN_OR_NULL, null);
        expect(first).not.toBe(own);
        expect(realmsReachedBy(RealmScope.OWN_OR_NULL, null)[1]).toBeNull();
    });
});
