import { ACCOUNT_STRINGS, STRINGS, type AccountStrings, type PageStrings } from './strings.js';
import { ACCOUNT_STRINGS_DE, STRINGS_DE } from './strings-de.js';

/**
 * The languages of the auth pages and how a request picks one: the authorization request's
 * `ui_locales` (OIDC Core §3.1.2.1: space-separated BCP 47 tags in order of preference), else the
 * browser's `Accept-Language` (RFC 9110 §12.5.4), else English. Discovery advertises the list as
 * `ui_locales_supported` (OIDC Discovery §3).
 */
export const PAGE_LOCALES = ['en', 'de'] as const;
export type PageLocale = (typeof PAGE_LOCALES)[number];

const CATALOGUES: Readonly<Record<PageLocale, { pages: PageStrings; account: AccountStrings }>> = {
    en: { pages: STRINGS, account: ACCOUNT_STRINGS },
    de: { pages: STRINGS_DE, account: ACCOUNT_STRINGS_DE },
};

/** A language tag's supported language: its primary subtag (RFC 4647 §3.4 lookup, truncating `de-CH` to `de`). */
function supported(tag: string): PageLocale | null {
    const primary = tag.trim().split('-')[0]!.toLowerCase();
    return (PAGE_LOCALES as readonly string[]).includes(primary) ? primary as PageLocale : null;
}

/** An `Accept-Language` header's tags by descending quality (RFC 9110 §12.4.2), q=0 and `*` left out. */
export function acceptedLanguages(header: string): string[] {
    const ranked = header.split(',').map((part, index) => {
        const [tag = '', ...parameters] = part.split(';').map((piece) => piece.trim());
        const q = parameters.find((parameter) => /^q=/i.test(parameter));
        const quality = q === undefined ? 1 : Number(q.slice(2));
        return { tag, quality: Number.isFinite(quality) ? quality : 0, index };
    }).filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.quality > 0);
    // equal qualities keep the header's order
    return ranked.sort((a, b) => b.quality - a.quality || a.index - b.index).map((entry) => entry.tag);
}

/**
 * The language of a page: the first supported tag of `ui_locales` (OIDC Core §3.1.2.1: none
 * supported is no error, so the browser's preference applies), else of `Accept-Language`, else English.
 */
export function negotiateLocale(preferences: { uiLocales?: string | undefined; acceptLanguage?: string | undefined }): PageLocale {
    const requested = (preferences.uiLocales ?? '').split(' ').filter(Boolean);
    for (const tag of [...requested, ...acceptedLanguages(preferences.acceptLanguage ?? '')]) {
        const locale = supported(tag);
        if (locale) return locale;
    }
    return 'en';
}

/** A page's language from a view's optional `locale`: a supported one, else English (a view without it renders as before). */
export const localeOf = (locale: string | undefined): PageLocale => (locale !== undefined && supported(locale)) || 'en';

export const pageStrings = (locale: string | undefined): PageStrings => CATALOGUES[localeOf(locale)].pages;
export const accountStrings = (locale: string | undefined): AccountStrings => CATALOGUES[localeOf(locale)].account;
