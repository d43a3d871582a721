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

/**
 * A whole document. No inline script or style (the pages' Content-Security-Policy allows neither):
 * the stylesheet is `/assets/auth.css` and the only script, the form_post auto-submit, is external.
 */
export function page(options: { title: string; realm: string; body: string; script?: string; scripts?: readonly string[] }): string {
    const script = [...(options.script ? [options.script] : []), ...(options.scripts ?? [])]
        .map((source) => `\n<script src="${escapeHtml(source)}" defer></script>`).join('');
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(options.title)} · ${escapeHtml(options.realm)}</title>
<link rel="stylesheet" href="/assets/auth.css">${script}
</head>
<body>
<main class="card">
<p class="realm">${escapeHtml(options.realm)}</p>
${options.body}
</main>
</body>
</html>
`;
}
