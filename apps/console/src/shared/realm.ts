import { inject, type InjectionKey } from 'vue';
import type { ConsoleConfig } from './config.js';
import { t } from './i18n/i18n.js';

/**
 * The realm a console tab signs in through. /authorize signs in only users of the client's realm
 * (spec Authentication, one realm per sign-in), so every realm has its own `admin-console` client
 * and the console picks the realm: `?realm=<name>` in its address (a realm's link to its users),
 * else the one this tab chose before (sessionStorage: a tab, not the whole browser, so two tabs
 * may sit in two realms), else the person types it on the signed-out screen (default master).
 */
const CHOSEN = 'realmgate.console.realm';
/** the realm this tab's current sign-in was completed through */
const SIGNED_IN = 'realmgate.console.signed-in-realm';

export const DEFAULT_REALM = 'master';

/** The realm named by `?realm=` (remembered for the tab and taken out of the address), else the tab's; null when none was chosen. */
export function chosenRealm(): string | null {
    const parameters = new URLSearchParams(location.search);
    const named = parameters.get('realm')?.trim();
    if (named) {
        rememberRealm(named);
        parameters.delete('realm');
        const search = parameters.toString();
        history.replaceState(history.state, '', `${location.pathname}${search ? `?${search}` : ''}${location.hash}`);
        return named;
    }
    return sessionStorage.getItem(CHOSEN);
}

export const rememberRealm = (realm: string): void => sessionStorage.setItem(CHOSEN, realm);
export const forgetRealm = (): void => sessionStorage.removeItem(CHOSEN);
export const signedInRealm = (): string | null => sessionStorage.getItem(SIGNED_IN);
export const markSignedIn = (realm: string): void => sessionStorage.setItem(SIGNED_IN, realm);
export const forgetSignedIn = (): void => sessionStorage.removeItem(SIGNED_IN);

/** What the console needs of a realm to sign in and out there, from its discovery document. */
export interface RealmEndpoints {
    realm: string;
    /** OpenID Connect Discovery 1.0 §3 `issuer`: the ID tokens of a sign-in must name it */
    issuer: string;
    /** OpenID Connect Discovery 1.0 §3 `authorization_endpoint` */
    authorizationEndpoint: string;
    /** OpenID Connect RP-Initiated Logout 1.0 §2.1 `end_session_endpoint` */
    endSessionEndpoint: string;
    /** the realm's `admin-console` client (the server's `realmgate_console_client_id` member) */
    clientId: string;
    /** whether the realm's users may use passkeys (the server's `realmgate_passkeys_enabled` member, API.md §8) */
    passkeysEnabled: boolean;
}

/** The tab's realm, provided to every page by boot.ts. */
export const REALM: InjectionKey<RealmEndpoints> = Symbol('realm');

export function useRealm(): RealmEndpoints {
    const realm = inject(REALM);
    if (!realm) throw new Error('useRealm() outside a booted console');
    return realm;
}

interface Discovery {
    issuer?: string;
    authorization_endpoint?: string;
    end_session_endpoint?: string;
    realmgate_console_client_id?: string;
    realmgate_passkeys_enabled?: boolean;
}

/**
 * The realm's discovery document (`/realms/<name>/.well-known/openid-configuration`, OpenID Connect
 * Discovery 1.0 §4): the endpoints are read, never assumed. Throws a message for the person when the
 * realm does not exist or has no console client.
 */
export async function discoverRealm(config: ConsoleConfig, realm: string): Promise<RealmEndpoints> {
    const response = await fetch(`${config.apiUrl}/realms/${encodeURIComponent(realm)}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
    if (response.status === 404) throw new Error(t('boot.noSuchRealm', { realm }));
    if (!response.ok) throw new Error(t('boot.realmUnreadable', { realm, status: response.status }));
    const document = (await response.json()) as Discovery;
    if (!document.issuer || !document.authorization_endpoint || !document.end_session_endpoint) throw new Error(t('boot.realmNoEndpoint', { realm }));
    // the master realm's client has a fixed id the server names in console-config.json
    const clientId = document.realmgate_console_client_id ?? (realm === DEFAULT_REALM ? config.clientId : undefined);
    if (!clientId) throw new Error(t('boot.realmNoClient', { realm }));
    return {
        realm, issuer: document.issuer, authorizationEndpoint: document.authorization_endpoint, endSessionEndpoint: document.end_session_endpoint, clientId,
        passkeysEnabled: document.realmgate_passkeys_enabled === true,
    };
}
