import { describe, expect, it } from 'vitest';
import { guideBlocks } from './guide-blocks.mjs';

describe('guide code blocks (scripts/guide-blocks.mjs, what scripts/guide-samples.mjs runs)', () => {
    it('lists the runnable blocks in order with their kind and fence line, leaving data blocks out', () => {
        const page = ['# Page', '', '```sh', 'echo one', '```', '', '```json', '{}', '```', '', '```ts', 'const a: number = 1;', '```', '```mjs', 'console.log(1);', '```'].join('\n');
        expect(guideBlocks(page).map(({ kind, line, code }) => ({ kind, line, code }))).toEqual([
            { kind: 'shell', line: 3, code: 'echo one' },
            { kind: 'typescript', line: 11, code: 'const a: number = 1;' },
            { kind: 'javascript', line: 14, code: 'console.log(1);' },
        ]);
    });

    it('reads the marker on the nearest non-blank line before a fence, and only there', () => {
        const page = [
            '<!-- sample: skip — needs Docker -->', '```bash', 'docker run x', '```',
            '<!-- sample: server -->', '', '```sh', 'npm start', '```',
            '<!-- sample: prelude const orders = new Map(); -->', '```ts', 'orders.size;', '```',
            '<!-- sample: skip -->', 'prose between', '```sh', 'echo runs', '```',
        ].join('\n');
        expect(guideBlocks(page).map(({ skip, server, prelude }) => ({ skip, server, prelude }))).toEqual([
            { skip: 'needs Docker', server: false, prelude: '' },
            { skip: null, server: true, prelude: '' },
            { skip: null, server: false, prelude: 'const orders = new Map();' },
            { skip: null, server: false, prelude: '' },
        ]);
    });

    it('takes the indentation of a block inside a list item off its lines', () => {
        const page = ['1. Step:', '', '   <!-- sample: skip — placeholders -->', '   ```sh', '   curl a \\', '     -d b', '   ```'].join('\n');
        expect(guideBlocks(page)).toEqual([{ kind: 'shell', line: 4, code: 'curl a \\\n  -d b', skip: 'placeholders', server: false, prelude: '', smtp: false, mail: null }]);
    });

    it('ends a block only at a closing fence at least as long as its opening one', () => {
        const page = ['````sh', 'cat <<EOF', '```', 'EOF', '````'].join('\n');
        expect(guideBlocks(page).map(({ code }) => code)).toEqual(['cat <<EOF\n```\nEOF']);
    });
});
