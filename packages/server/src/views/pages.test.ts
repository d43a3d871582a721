import { describe, expect, it } from 'vitest';
import * as views from './index.js';

/* The built-in auth console: pure render functions, everything escaped, no inline script or style. */
describe('auth pages', () => {
    const hostile = '"><script>alert(1)</script>';
    const realm = { name: 'acme', displayName: hostile };
    const client = { name: 'app', displayName: hostile };
    const form = { action: `https://id.example/authorize/sign-in?x="${hostile}`, fields: { state: hostile, [hostile]: 'v', skipped: undefined } };
    const pages = [
        views.renderSignIn({ realm, client, form, username: hostile, error: hostile }),
        views.renderConsent({ realm, client, user: hostile, scopes: ['openid', hostile], form }),
        views.renderLogout({ realm, form }),
        views.renderLoggedOut({ realm }),
        views.renderError({ realm, error: hostile, message: hostile }),
        views.renderFormPost({ realm, form }),
        views.renderSecondFactor({ realm, client, form, error: hostile }),
        views.renderDeviceCode({ realm, form, userCode: hostile, error: hostile }),
        views.renderDeviceConfirm({ realm, client, user: hostile, userCode: hostile, scopes: ['openid', hostile], form }),
        views.renderDeviceDone({ realm, client, approved: true }),
        views.renderDeviceDone({ realm, client, approved: false }),
    ];

    it('declares contract version 5', () => {
        expect(views.CONTRACT_VERSION).toBe(5);
    });

    it('escapes every value it is given, in text and in attributes', () => {
        for (const html of pages) {
            expect(html).not.toContain('<script>alert(1)</script>');
            expect(html).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
        }
    });

    it('links the stylesheet, carries no inline script or style, and drops undefined hidden fields', () => {
        for (const html of pages) {
            expect(html.startsWith('<!doctype html>')).toBe(true);
            expect(html).toContain('<link rel="stylesheet" href="/assets/auth.css">');
            expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
            expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
            expect(html).not.toContain('name="skipped"');
        }
    });

    it('shows the realm name when it has no display name', () => {
        expect(views.renderLoggedOut({ realm: { name: 'acme', displayName: null } })).toContain('<p class="realm">acme</p>');
    });
});
