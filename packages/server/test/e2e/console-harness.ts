import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT } from '../server-process.js';

export { ensureConsoleBuilt } from './console-build.js';

/*
 * The consoles' browser harness: the build the server serves, made when it is missing or
 * older than its sources; a page that records every console error, failed request and error
 * answer; and an axe-core scan of the page as rendered.
 */

/** Answers a page may see on its way without anything being wrong. */
export interface Expected {
    /** URL fragments whose error answers (and their console lines) are expected, e.g. the signed-out probe */
    answers?: string[];
}

export interface WatchedPage {
    page: Page;
    /** fails the test on any console error, failed request or unexpected 4xx/5xx answer so far */
    assertClean(): void;
    /** forgets what was recorded (after a step whose errors the test itself expected) */
    reset(): void;
}

/** A page of `context` that records what must not happen. */
export async function watchedPage(context: BrowserContext, expected: Expected = {}): Promise<WatchedPage> {
    const page = await context.newPage();
    // a step that does not happen fails within the test's own time, naming the step
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    // the browser asks for /favicon.ico of the server's own auth pages by itself
    const allowed = (url: string) => url.endsWith('/favicon.ico') || (expected.answers ?? []).some((fragment) => url.includes(fragment));
    page.on('console', (message) => {
        if (message.type() === 'error' && !allowed(message.location().url)) problems.push(`console error: ${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => {
        // a request cut short by the navigation the page itself started is not a failure
        if (request.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`failed request: ${request.url()} ${request.failure()?.errorText}`);
    });
    page.on('response', (response) => {
        if (response.status() >= 400 && !allowed(response.url())) problems.push(`${response.status()} from ${response.request().method()} ${response.url()}`);
    });
    return {
        page,
        assertClean: () => expect(problems).toEqual([]),
        reset: () => { problems.length = 0; },
    };
}

/**
 * CONSOLE_SCREENSHOTS=<folder>: the browser tests save their main pages there as PNG, `<name>.png`
 * (the consoles guide's pictures come from docs/screenshots); nothing without it.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
    const folder = process.env.CONSOLE_SCREENSHOTS;
    if (folder) await page.screenshot({ path: join(folder, `${name}.png`), fullPage: options.fullPage ?? false });
}

const AXE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/**
 * axe-core on the page as it is (WCAG 2.1 A and AA rules): the serious and critical violations,
 * each as "rule: targets". The script goes in through the DevTools protocol, so the page's strict
 * CSP stays on.
 */
export async function axeViolations(page: Page): Promise<string[]> {
    await page.evaluate(AXE);
    return page.evaluate(async () => {
        const scope = globalThis as unknown as { document: unknown; axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> } };
        const result = await scope.axe.run(scope.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
        return result.violations
            .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
            .map((violation) => `${violation.id}: ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`);
    });
}
