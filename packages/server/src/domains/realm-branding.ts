import type { FieldSpec } from './resource/spec.js';

/*
 * A realm's branding of its sign-in pages (API.md §8 `logoUrl`, `primaryColor`). The values end up
 * in an `<img src>` and a stylesheet, so the write refuses anything that could be more than an image
 * address or a colour: the patterns are the whole check, and they are in the realm's JSON Schema
 * (OpenAPI, the provisioning file's schema), so a tool sees the same rule the server enforces.
 */

/** Characters no logo address carries: whitespace, controls, quotes, angle brackets, backslash (browsers read `\` as `/`). */
const URL_CHARACTER = String.raw`[^\s"'<>\\\u0000-\u001f\u007f]`;

/**
 * An https URL with a plain host (no userinfo, so `https://good@evil` cannot mislead), or an absolute
 * path on this server such as `/assets/logo.svg` — never `//host` (a network-path reference, RFC 3986
 * §4.2, which would leave the server). Any other scheme (`data:`, `javascript:`, `http:`) is refused.
 */
export const LOGO_URL_PATTERN = String.raw`^(https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/${URL_CHARACTER}*)?|/[^/\s"'<>\\\u0000-\u001f\u007f]${URL_CHARACTER}*)$`;

/** `#rrggbb` only: six hex digits, so the stylesheet never holds anything but a colour. */
export const PRIMARY_COLOR_PATTERN = '^#[0-9A-Fa-f]{6}$';

export const realmBrandingFields: readonly FieldSpec[] = [
    { name: 'logoUrl', column: 'logo_url', type: 'string', nullable: true, maxLength: 2048, pattern: LOGO_URL_PATTERN, create: 'optional', update: true },
    { name: 'primaryColor', column: 'primary_color', type: 'string', nullable: true, maxLength: 7, pattern: PRIMARY_COLOR_PATTERN, create: 'optional', update: true },
];
