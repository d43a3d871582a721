import type { FastifyRequest } from 'fastify';
import { negotiateLocale, type PageLocale } from '../views/locale.js';

/**
 * The language of an auth page answering `request`: the authorization request's `ui_locales` when
 * the page belongs to one (it travels in the forms' hidden fields, the pushed or sealed parameters
 * and the upstream round trip like every other authorization parameter), else the browser's
 * `Accept-Language`, else English (views/locale.ts).
 */
export function pageLocale(request: FastifyRequest, uiLocales?: string): PageLocale {
    const header = request.headers['accept-language'];
    return negotiateLocale({ uiLocales, acceptLanguage: Array.isArray(header) ? header.join(',') : header });
}
