import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, describeConfig } from './schema.js';

describe('README configuration table', () => {
    const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

    it('lists every configuration variable (docs and code stay in step)', () => {
        for (const entry of CONFIG_KEYS) expect(readme, entry.env).toContain(`\`${entry.env}\``);
    });

    it('is the table describeConfig() renders, "not yet effective" marks included', () => {
        expect(readme).toContain(describeConfig());
    });
});
