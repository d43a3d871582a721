import { describe, expect, it } from 'vitest';
import { LOGO_URL_PATTERN, PRIMARY_COLOR_PATTERN } from './realm-branding.js';

/* The realm branding fields' rules, as the JSON Schema validator applies them (ECMA-262 with the u flag). */
describe('realm branding values', () => {
    const logo = new RegExp(LOGO_URL_PATTERN, 'u');
    const color = new RegExp(PRIMARY_COLOR_PATTERN, 'u');

    it('accepts an https URL or an absolute path on this server as the logo', () => {
        for (const value of ['https://cdn.example.com/logo.svg', 'https://example.com', 'https://example.com:8443/a/b.png?v=2#x', '/assets/logo.png', '/logo.svg']) {
            expect(logo.test(value), value).toBe(true);
        }
    });

    it('refuses every other logo address: other schemes, network-path references, userinfo, markup and whitespace', () => {
        for (const value of [
            'data:image/svg+xml;base64,PHN2Zz4=', 'javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'http://example.com/logo.png', 'ftp://example.com/logo.png',
            '//evil.example/logo.png', '/\\evil.example/logo.png', 'https://user@evil.example/logo.png', 'https:///logo.png',
            'https://example.com/"onerror="alert(1)', "/a'b", '/a<b>', '/a b', 'https://example.com/a\nb', 'logo.png', '', '/', ' /logo.png',
        ]) {
            expect(logo.test(value), value).toBe(false);
        }
    });

    it('accepts #rrggbb colours only', () => {
        for (const value of ['#000000', '#1d4ED8', '#FFFFFF']) expect(color.test(value), value).toBe(true);
        for (const value of ['#fff', 'red', '#1d4ed8ff', '1d4ed8', '#1d4ed', '#gggggg', '#1d4ed8;}', 'rgb(0,0,0)', '#1d4ed8\n']) expect(color.test(value), value).toBe(false);
    });
});
