import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMarkdownRenderer } from 'vitepress';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOpenApiDocument } from '../../../../docs/scripts/read-openapi.js';
import { listOperations, renderOpenApi, type OpenApiDocument } from '../../../../docs/scripts/render-openapi.js';

const DOCS = fileURLToPath(new URL('../../../../docs/', import.meta.url));

/** The HTML text of `<code>` inside an `<h3>`, unescaped: the heading each operation gets. */
function operationHeadings(html: string): Set<string> {
    const headings = new Set<string>();
    for (const match of html.matchAll(/<h3[^>]*>[\s\S]*?<code>([^<]*)<\/code>/g)) {
        headings.add(match[1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'"));
    }
    return headings;
}

// The API reference page (docs/reference/api.md) is the server's own document rendered at build time
// (docs/scripts/generate-reference.ts): every route and method the server declares must be on it.
describe('API reference (docs/reference/api.md)', () => {
    let document: OpenApiDocument;
    let html: string;

    beforeAll(async () => {
        document = await readOpenApiDocument();
        // the Markdown the build writes, through VitePress's own Markdown renderer
        const markdown = await createMarkdownRenderer(DOCS);
        html = markdown.render(renderOpenApi(document));
    });

    it('includes the generated operations', () => {
        expect(readFileSync(`${DOCS}reference/api.md`, 'utf8')).toContain('<!--@include: ./generated/operations.md-->');
    });

    it('renders a heading for every route and method of /openapi.json', () => {
        const operations = listOperations(document).map(({ method, path }) => `${method} ${path}`);
        expect(operations.length).toBeGreaterThan(300);
        const headings = operationHeadings(html);
        expect(operations.filter((operation) => !headings.has(operation))).toEqual([]);
        expect(headings.size).toBe(operations.length);
    });

    it('keeps `{{…}}` in descriptions as text, not a Vue interpolation', () => {
        expect(html).toContain('v-pre');
    });
});
