import { expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';
import { CatalogCache } from './catalog-cache.js';

describeEachDialect('CatalogCache', (dialect) => {
    const app = useTestApp(dialect);

    it('keeps the same object across an unchanged rebuild and hands out a new one after a write on another replica', async () => {
        let now = 0;
        const cache = new CatalogCache(app.deps.db, 1_000, () => now);
        const first = await cache.get();
        now += 5_000;
        expect(await cache.get()).toBe(first);
        // a write this process did not see (another replica): only the TTL brings it in
        await app.json({ method: 'POST', url: '/permissions', payload: { name: 'cache-probe' } }, 201);
        expect(await cache.get()).toBe(first);
        now += 5_000;
        const second = await cache.get();
        expect(second).not.toBe(first);
        expect(second.permissions.some((definition) => definition.name === 'cache-probe')).toBe(true);
        // a local invalidation rebuilds at once; nothing changed, so the object stays
        cache.invalidate();
        expect(await cache.get()).toBe(second);
    });

    it('asks a TTL given as a function at each read: a bus that stops hearing shortens how long a catalog serves', async () => {
        let now = 0;
        let hearing = true;
        const cache = new CatalogCache(app.deps.db, () => (hearing ? 60_000 : 2_000), () => now);
        const first = await cache.get();
        await app.json({ method: 'POST', url: '/permissions', payload: { name: 'unheard-probe' } }, 201);
        now += 5_000;
        expect(await cache.get()).toBe(first);
        hearing = false;
        const second = await cache.get();
        expect(second).not.toBe(first);
        expect(second.permissions.some((definition) => definition.name === 'unheard-probe')).toBe(true);
    });
});
