import { describe, expect, it } from 'vitest';
import { acceptedLanguages, localeOf, negotiateLocale, pageStrings, PAGE_LOCALES } from './locale.js';
import { STRINGS } from './strings.js';
import { STRINGS_DE } from './strings-de.js';

/* The language of the auth pages: ui_locales (OIDC Core §3.1.2.1), else Accept-Language (RFC 9110 §12.5.4), else English. */
describe('locale negotiation', () => {
    it('takes the first supported tag of ui_locales, a regional tag by its language (RFC 4647 lookup)', () => {
        expect(negotiateLocale({ uiLocales: 'de' })).toBe('de');
        expect(negotiateLocale({ uiLocales: 'fr-CA de-CH en' })).toBe('de');
        expect(negotiateLocale({ uiLocales: 'en de' })).toBe('en');
        expect(negotiateLocale({ uiLocales: 'DE-at' })).toBe('de');
    });

    it('prefers ui_locales over Accept-Language, and falls back to it when ui_locales names nothing supported', () => {
        expect(negotiateLocale({ uiLocales: 'en', acceptLanguage: 'de' })).toBe('en');
        expect(negotiateLocale({ uiLocales: 'fr ja', acceptLanguage: 'de-DE,de;q=0.9' })).toBe('de');
        expect(negotiateLocale({ uiLocales: '', acceptLanguage: 'de' })).toBe('de');
    });

    it('orders Accept-Language by quality, keeps the header order on ties and drops q=0 and *', () => {
        expect(acceptedLanguages('fr;q=0.5, de;q=0.8, en;q=0.8, *;q=0.1, ja;q=0')).toEqual(['de', 'en', 'fr']);
        expect(negotiateLocale({ acceptLanguage: 'fr-FR, en;q=0.4, de;q=0.7' })).toBe('de');
        expect(negotiateLocale({ acceptLanguage: 'de;q=0, en' })).toBe('en');
        expect(negotiateLocale({ acceptLanguage: 'de;q=bogus, en;q=0.1' })).toBe('en');
    });

    it('falls back to English when nothing is asked or nothing supported is', () => {
        expect(negotiateLocale({})).toBe('en');
        expect(negotiateLocale({ uiLocales: 'fr', acceptLanguage: 'ja, *' })).toBe('en');
        expect(localeOf(undefined)).toBe('en');
        expect(localeOf('xx')).toBe('en');
        expect(PAGE_LOCALES).toEqual(['en', 'de']);
    });

    it('has a German text for every English one, none left in English', () => {
        expect(Object.keys(STRINGS_DE).sort()).toEqual(Object.keys(STRINGS).sort());
        expect(pageStrings('de')).toBe(STRINGS_DE);
        expect(pageStrings('de-CH').signInButton).toBe('Anmelden');
        expect(pageStrings(undefined)).toBe(STRINGS);
        const untranslated = (Object.keys(STRINGS) as (keyof typeof STRINGS)[])
            .filter((key) => typeof STRINGS[key] === 'string' && STRINGS[key] === STRINGS_DE[key] && key !== 'passkeyDefaultName' && key !== 'codeLabel');
        expect(untranslated).toEqual([]);
    });
});
