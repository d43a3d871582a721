/*
 * The code blocks of a guide page, in order, as scripts/guide-samples.mjs runs them.
 *
 * A fenced block's language decides what happens to it: `sh`/`bash`/`shell` run in the page's one
 * bash session, `ts`/`typescript` compile under `strict`, `js`/`mjs`/`javascript` run with node;
 * any other language (json, yaml, text, none) is data and is left alone. An HTML comment on the
 * line right before the fence (VitePress does not render it) changes that:
 *
 *   <!-- sample: skip — <reason> -->    not run; the reason is reported
 *   <!-- sample: server -->             the runner's own server stands for this block (`npm start`)
 *   <!-- sample: prelude <code> -->     <code> goes before the block when it is compiled or run,
 *                                       for a fragment that continues an earlier block
 *   <!-- sample: smtp -->               the runner's own mail relay stands for this block (the
 *                                       reader's throwaway relay); the page's server gets SMTP_URL
 *   <!-- sample: mail — <reason> -->    the reader copies the code of a mailed link into this block:
 *                                       the runner puts in the code of the next mail the relay got
 */

const KINDS = new Map([
    ['sh', 'shell'], ['bash', 'shell'], ['shell', 'shell'],
    ['ts', 'typescript'], ['typescript', 'typescript'],
    ['js', 'javascript'], ['mjs', 'javascript'], ['javascript', 'javascript'],
]);

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const MARKER = /^\s*<!--\s*sample:\s*(skip|server|prelude|smtp|mail)\b\s*(?:[—–-]\s*)?([\s\S]*?)\s*-->\s*$/;

/**
 * @typedef {{ kind: 'shell' | 'typescript' | 'javascript', line: number, code: string,
 *   skip: string | null, server: boolean, prelude: string, smtp: boolean, mail: string | null }} GuideBlock
 */

/**
 * Every runnable block of `markdown` in order (data blocks are left out). `line` is the fence's
 * 1-based line number, for messages that name the block.
 * @param {string} markdown
 * @returns {GuideBlock[]}
 */
export function guideBlocks(markdown) {
    const lines = markdown.split('\n');
    /** @type {GuideBlock[]} */
    const blocks = [];
    for (let index = 0; index < lines.length; index++) {
        const open = FENCE.exec(lines[index]);
        if (!open) continue;
        const [, indent, fence, language] = open;
        const body = [];
        let end = index + 1;
        // CommonMark: the closing fence is at least as long as the opening one, of the same character
        while (end < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[end])) {
            body.push(lines[end].startsWith(indent) ? lines[end].slice(indent.length) : lines[end].trimStart());
            end++;
        }
        const kind = KINDS.get(language.toLowerCase());
        if (kind) blocks.push({ kind, line: index + 1, code: body.join('\n'), ...markerBefore(lines, index) });
        index = end;
    }
    return blocks;
}

/** The marker comment on the nearest non-blank line before the fence at `index`, if any. */
function markerBefore(lines, index) {
    let previous = index - 1;
    while (previous >= 0 && lines[previous].trim() === '') previous--;
    const marker = previous >= 0 ? MARKER.exec(lines[previous]) : null;
    const result = { skip: null, server: false, prelude: '', smtp: false, mail: null };
    if (marker?.[1] === 'skip') result.skip = marker[2] || 'no reason given';
    if (marker?.[1] === 'server') result.server = true;
    if (marker?.[1] === 'prelude') result.prelude = marker[2];
    if (marker?.[1] === 'smtp') result.smtp = true;
    if (marker?.[1] === 'mail') result.mail = marker[2] || 'no reason given';
    return result;
}
