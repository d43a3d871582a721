import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';
import { createCacheRegistry } from './registry.js';

describe('BoundedCache (every cache bounded and counted)', () => {
    it('keeps at most its bound, evicting the least recently used, and counts hits, misses and evictions', () => {
        const cache = new BoundedCache<number>('test', 2);
        cache.set('a', 1);
        cache.set('b', 2);
        expect(cache.get('a')).toBe(1); // a is now the most recently used
        cache.set('c', 3); // evicts b
        expect(cache.get('b')).toBeUndefined();
        expect(cache.get('a')).toBe(1);
        expect(cache.get('c')).toBe(3);
        expect(cache.stats()).toEqual({ name: 'test', size: 2, bound: 2, hits: 3, misses: 1, evictions: 1, invalidations: 0 });
    });

    it('forgets one key or everything on invalidate', () => {
        const cache = new BoundedCache<string>('test', 10);
        cache.set('a', 'x');
        cache.set('b', 'y');
        cache.invalidate('a');
        expect(cache.get('a')).toBeUndefined();
        expect(cache.get('b')).toBe('y');
        cache.invalidate();
        expect(cache.get('b')).toBeUndefined();
        cache.set('r1/x', 'x');
        cache.set('r2/y', 'y');
        cache.invalidateWhere((key) => key.startsWith('r1/'));
        expect([cache.get('r1/x'), cache.get('r2/y')]).toEqual([undefined, 'y']);
        expect(cache.stats().invalidations).toBe(3);
    });

    it('never stores a value whose load an invalidation raced (a write committed while the read was in flight)', async () => {
        const cache = new BoundedCache<string>('test', 10);
        let release!: () => void;
        const loading = cache.through('k', () => new Promise<string>((resolve) => {
            release = () => resolve('before the write');
        }));
        cache.invalidate();
        release();
        expect(await loading).toBe('before the write');
        expect(cache.get('k')).toBeUndefined();
        // an unraced load is remembered; an absent value never is
        expect(await cache.through('k', async () => 'after')).toBe('after');
        expect(cache.get('k')).toBe('after');
        expect(await cache.through('none', async () => undefined)).toBeUndefined();
        expect(cache.stats().size).toBe(1);
    });

    it('serves nothing and stores nothing while disabled, with a bound of 0, or past its TTL', () => {
        let enabled = true;
        let now = 0;
        const cache = new BoundedCache<number>('test', 5, () => enabled, 100, () => now);
        cache.set('a', 1);
        enabled = false;
        expect(cache.get('a')).toBeUndefined();
        cache.set('b', 2);
        enabled = true;
        expect(cache.get('b')).toBeUndefined();
        expect(cache.get('a')).toBe(1);
        now = 100;
        expect(cache.get('a')).toBeUndefined();
        const off = new BoundedCache<number>('off', 0);
        off.set('a', 1);
        expect(off.get('a')).toBeUndefined();
        expect(() => new BoundedCache('bad', -1)).toThrow(/bound/);
    });

    it('a registry reports every cache and empties them all at once', () => {
        const registry = createCacheRegistry();
        const one = registry.create<number>('one', 3);
        const two = registry.create<number>('two', 4);
        one.set('a', 1);
        two.set('b', 2);
        expect(registry.stats().map((stats) => [stats.name, stats.size, stats.bound])).toEqual([['one', 1, 3], ['two', 1, 4]]);
        registry.invalidateAll();
        expect(registry.stats().map((stats) => stats.size)).toEqual([0, 0]);
        expect(() => registry.create('one', 1)).toThrow(/twice/);
    });
});
