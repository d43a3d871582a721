import { DE } from './de.js';
import { EN, type MessageKey } from './en.js';

/**
 * The consoles' strings (admin and account): one typed catalogue per locale, English the source
 * and the fallback. The locale is the first of the browser's preferred languages
 * (`navigator.languages`, HTML Living Standard §8.9.1.5) the consoles speak, chosen once at boot;
 * a page reads `t('key', { name })`. Module-level field tables call `t` when their page's chunk
 * loads, which is after boot has chosen the locale. The German catalogue is typed against the English keys, so a
 * string missing from it fails the type check.
 */
export type { MessageKey } from './en.js';
export type Locale = 'en' | 'de';

const CATALOGUES: Record<Locale, Record<MessageKey, string>> = { en: EN, de: DE };

/** The first supported language of `languages` (BCP 47 tags, primary subtag compared), else English. */
function chooseLocale(languages: readonly string[]): Locale {
    for (const tag of languages) {
        const primary = tag.toLowerCase().split('-')[0];
        if (primary === 'de' || primary === 'en') return primary;
    }
    return 'en';
}

let current: Locale = 'en';

/** Sets the locale for the page's life and tells assistive technology and the browser (`<html lang>`). */
export function useLocaleOf(languages: readonly string[]): Locale {
    current = chooseLocale(languages);
    document.documentElement.lang = current;
    return current;
}

/** The message `key` in the page's locale, `{name}` placeholders replaced by `params`. */
export function t(key: MessageKey, params: Record<string, string | number | null | undefined> = {}): string {
    const template = CATALOGUES[current][key] ?? EN[key];
    return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name] ?? '') : whole));
}
