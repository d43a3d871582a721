import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withConfigurationTable } from '../../../../docs/scripts/configuration-page.js';
import { CONFIG_KEYS } from '../../src/config/schema.js';

describe('configuration reference (docs/reference/configuration.md)', () => {
    const page = readFileSync(new URL('../../../../docs/reference/configuration.md', import.meta.url), 'utf8');

    it('lists every configuration variable (docs and code stay in step)', () => {
        for (const entry of CONFIG_KEYS) expect(page, entry.env).toContain(`\`${entry.env}\``);
    });

    it('holds the table describeConfig() renders, "not yet effective" marks included (npm run docs:configuration)', () => {
        expect(page).toBe(withConfigurationTable(page));
    });
});
