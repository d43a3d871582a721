import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS } from './schema.js';

describe('README configuration table', () => {
    it('lists every configuration variable (docs and code stay in step)', () => {
        const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
        for (const entry of CONFIG_KEYS) expect(readme, entry.env).toContain(`\`${entry.env}\``);
    });
});
