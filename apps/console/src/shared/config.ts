import { t } from './i18n/i18n.js';

/**
 * What the server tells a console at start (`console-config.json` beside its index.html, see
 * packages/server/src/http/consoles.ts): read with a request instead of an inline script, which the
 * strict Content-Security-Policy would refuse.
 */
export type ConsoleName = 'admin' | 'account';

export interface ConsoleConfig {
    console: ConsoleName;
    /** PUBLIC_URL: where the API answers */
    apiUrl: string;
    /** `session`: served by the API, the auth pages' session cookie; `token`: standalone, code + PKCE */
    mode: 'session' | 'token';
    /** the admin-console client (spec beta.66 item 4) */
    clientId: string;
    /** this console's root, a registered redirect URI of admin-console */
    redirectUri: string;
}

export async function loadConsoleConfig(name: ConsoleName): Promise<ConsoleConfig> {
    const response = await fetch(`${import.meta.env.BASE_URL}${name}/console-config.json`, { cache: 'no-cache', headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(t('boot.configUnreadable', { status: response.status }));
    return (await response.json()) as ConsoleConfig;
}
