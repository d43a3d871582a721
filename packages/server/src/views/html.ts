import type { PageClient, PageRealm } from './contract.js';
import { localeOf } from './locale.js';

/** HTML escaping and the page frame every auth page shares. */

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an element's content or a quoted attribute value (OWASP XSS Prevention rule 1 and 2). */
export function escapeHtml(value: string): string {
    return value.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** The hidden inputs that carry a form's state (the authorization request, the CSRF token). */
export function hiddenFields(fields: Readonly<Record<string, string | undefined>>): string {
    return Object.entries(fields)
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
        .join('\n');
}

/** What a page shows as its realm: the display name when set, else the name; "Realmgate" before a realm is known. */
export const realmName = (realm: PageRealm | null): string => (realm ? realm.displayName ?? realm.name : 'Realmgate');

/** What a page shows as its client: the display name when set, else the name. */
export const clientName = (client: PageClient): string => client.displayName ?? client.name;

/** A message above a form (wrong credentials, an expired link), announced to screen readers. */
export const errorLine = (error: string | undefined): string => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>\n` : '');

/**
 * The realm's head of the card: its logo (decorative beside the name, so `alt=""`; WCAG H67) and its
 * name. The logo's address was validated on write (https or a path on this server) and is escaped
 * like every other value.
 */
function realmHeader(realm: PageRealm | null): string {
    const logo = realm?.logoUrl ? `<img class="logo" src="${escapeHtml(realm.logoUrl)}" alt="">\n` : '';
    return `${logo}<p class="realm">${escapeHtml(realmName(realm))}</p>`;
}

/**
 * A whole document. No inline script or style (the pages' Content-Security-Policy allows neither):
 * the stylesheet is `/assets/auth.css`, a branded realm's colour its own stylesheet after it, and the
 * only scripts are external. `lang` is the page's language (WCAG 2.2 SC 3.1.1).
 */
export function page(options: { title: string; realm: PageRealm | null; locale: string | undefined; body: string; script?: string; scripts?: readonly string[] }): string {
    const script = [...(options.script ? [options.script] : []), ...(options.scripts ?? [])]
        .map((source) => `\n<script src="${escapeHtml(source)}" defer></script>`).join('');
    const branding = options.realm?.brandingStylesheetUrl ? `\n<link rel="stylesheet" href="${escapeHtml(options.realm.brandingStylesheetUrl)}">` : '';
    return `<!doctype html>
<html lang="${localeOf(options.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(options.title)} · ${escapeHtml(realmName(options.realm))}</title>
<link rel="stylesheet" href="/assets/auth.css">${branding}${script}
</head>
<body>
<main class="card">
${realmHeader(options.realm)}
${options.body}
</main>
</body>
</html>
`;
}
