import { createClient, isRealmgateError, type Auth, type RealmgateClient, type RealmgateErrorIssue } from '@realmgate/client';
import { inject, type InjectionKey } from 'vue';
import type { ConsoleConfig } from './config.js';
import { t } from './i18n/i18n.js';

/**
 * The consoles talk to the API only through packages/client. Served by the API,
 * the console session cookie goes with every same-origin request (fetch's default credentials) and
 * X-Requested-With satisfies the CSRF rule of cookie-authenticated unsafe requests
 * (authn/console-session.ts, OWASP "Custom Request Headers"); standalone, a bearer token is sent.
 */
export function createApi(config: ConsoleConfig, auth?: Auth): RealmgateClient {
    return createClient({
        baseUrl: config.apiUrl,
        ...(auth ? { auth } : {}),
        ...(config.mode === 'session' ? { headers: { 'x-requested-with': 'realmgate-console' } } : {}),
    });
}

export const API: InjectionKey<RealmgateClient> = Symbol('api');

/** The API client of the running console (provided by boot.ts). */
export function useApi(): RealmgateClient {
    const api = inject(API);
    if (!api) throw new Error('useApi() outside a console');
    return api;
}

/** A sentence for any failure of a call, the 403 of the server's decision made plain. */
export function describeError(error: unknown): string {
    if (!isRealmgateError(error)) return error instanceof Error ? error.message : String(error);
    if (error.statusCode === 401) return t('api.sessionEnded');
    if (error.statusCode === 403) return t('api.forbidden', { reason: error.message });
    if (error.statusCode === 404) return t('api.notFound', { reason: error.message });
    if (error.statusCode === 0) return t('api.unreachable');
    return error.message;
}

/** The 400 answer's issues by field name (the first segment of each issue's path). */
export function issuesByField(error: unknown): Record<string, string> {
    const byField: Record<string, string> = {};
    if (!isRealmgateError(error)) return byField;
    for (const issue of error.issues as RealmgateErrorIssue[]) {
        const field = String(issue.path[0] ?? '');
        byField[field] = byField[field] ? `${byField[field]} ${issue.message}` : issue.message;
    }
    return byField;
}

/** A 403 of the API: the caller may not do this (the server decides; the gate is an upper bound). */
export const isForbidden = (error: unknown): boolean => isRealmgateError(error) && error.statusCode === 403;
/** A 401 of the API: the session or token has ended. */
export const isUnauthenticated = (error: unknown): boolean => isRealmgateError(error) && error.statusCode === 401;
