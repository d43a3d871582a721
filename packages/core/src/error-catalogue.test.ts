import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_CODE_STATUS, ErrorCode } from './error-code.js';

/** The rows of docs/reference/errors.md's code table: `| \`code\` | status | when | RFC error |`. */
function documentedCodes(): { code: string; status: number }[] {
    const catalogue = readFileSync(new URL('../../../docs/reference/errors.md', import.meta.url), 'utf8');
    return [...catalogue.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => ({ code: code!, status: Number(status) }));
}

// DESIGN.md §7 habit 4 (after fastify's lib/errors.js and its docs test): one catalogue, documented,
// and a test that keeps the enumeration, the status table and the documentation in step.
describe('error catalogue (docs/reference/errors.md)', () => {
    const rows = documentedCodes();

    it('documents every ErrorCode value, once, and names no code that does not exist', () => {
        const documented = rows.map((row) => row.code);
        expect(new Set(documented).size, 'a code documented twice').toBe(documented.length);
        expect([...documented].sort()).toEqual([...ERROR_CODES].sort());
    });

    it('gives each code the status ERROR_CODE_STATUS answers', () => {
        for (const row of rows) expect(row.status, row.code).toBe(ERROR_CODE_STATUS[row.code as ErrorCode]);
    });

    it('has a status for exactly the enumerated codes (no stray key in ERROR_CODE_STATUS)', () => {
        expect(Object.keys(ERROR_CODE_STATUS).sort()).toEqual([...ERROR_CODES].sort());
        expect(ERROR_CODES).toEqual(Object.values(ErrorCode));
    });
});
