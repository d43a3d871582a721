import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { deploymentPrefix } from './setup.js';

describe('deploymentPrefix', () => {
    const prefixOf = (env: Record<string, string>) => deploymentPrefix(loadConfig({ DB_TYPE: 'postgres', ...env }));

    it('is shared by replicas of one database and differs between databases, credentials aside', () => {
        const a = prefixOf({ DB_URL: 'postgres://app:one@db:5432/realmgate' });
        expect(a).toMatch(/^realmgate:limits:[0-9a-f]{12}:$/);
        expect(prefixOf({ DB_URL: 'postgres://app:two@db:5432/realmgate' })).toBe(a);
        expect(prefixOf({ DB_URL: 'postgres://app:one@db:5432/other' })).not.toBe(a);
        expect(a).not.toContain('one');
        expect(prefixOf({ DB_HOST: 'db', DB_DATABASE: 'x' })).not.toBe(prefixOf({ DB_HOST: 'db', DB_DATABASE: 'y' }));
    });
});
