import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, it } from 'vitest';
import { noTrackerReferences } from './no-tracker-references.js';

RuleTester.afterAll = afterAll;
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const ruleTester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' } });

ruleTester.run('no-tracker-references', noTrackerReferences, {
    valid: [
        '// RFC 6749 §5.2: a refused grant answers invalid_grant',
        '/** the 400 answer lists its issues beside their fields */ const issues = [];',
        '// a tissue 12 cm wide; reissue 3 times',
        "const message = 'issue 14';",
        '/* spec Limits: 300 failures per minute */',
    ],
    invalid: [
        { code: '// issue 14: multi-factor', errors: [{ messageId: 'trackerReference', data: { reference: 'issue 14' } }] },
        { code: '/** (issue 19 item 4) */ const cache = 1;', errors: [{ messageId: 'trackerReference', data: { reference: 'issue 19' } }] },
        { code: "/* Issue 27's targets */", errors: [{ messageId: 'trackerReference', data: { reference: 'Issue 27' } }] },
        { code: '// see issue #12', errors: [{ messageId: 'trackerReference', data: { reference: 'issue #12' } }] },
        { code: '// TASK 3 left', errors: [{ messageId: 'trackerReference', data: { reference: 'TASK 3' } }] },
        { code: '// ISSUE13 sessions model', errors: [{ messageId: 'trackerReference', data: { reference: 'ISSUE13' } }] },
        { code: '/*\n * Issues 12 and 13\n */', errors: [{ messageId: 'trackerReference', line: 1, endLine: 3 }] },
        { code: 'const a = 1; // issue 5\nconst b = 2; // issue 6', errors: [{ messageId: 'trackerReference', line: 1 }, { messageId: 'trackerReference', line: 2 }] },
    ],
});
