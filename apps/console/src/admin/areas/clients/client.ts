import { inject, type InjectionKey, type Ref } from 'vue';

export interface Client {
    id?: string | null;
    name?: string | null;
    displayName?: string | null;
    active?: boolean | null;
    builtIn?: boolean | null;
    firstParty?: boolean | null;
    secretHashed?: boolean | null;
    secretEncrypted?: boolean | null;
    realmId?: string | null;
    /** the folder the row is filed in (/paths) */
    pathId?: string | null;
    createdAt?: string | null;
    updatedAt?: string | null;
    [member: string]: unknown;
}

/** The client of ClientPage.vue, shared with its tabs. */
export const CLIENT: InjectionKey<{ client: Ref<Client | null>; reload(): Promise<void> }> = Symbol('client');

export function useClient(): { client: Ref<Client | null>; reload(): Promise<void> } {
    const provided = inject(CLIENT);
    if (!provided) throw new Error('a client tab outside ClientPage.vue');
    return provided;
}

/**
 * A new secret handed from the page that made it to the page that shows it, in memory only: never
 * in the URL, storage or history, so it is shown once and gone with the page (spec: answered once).
 */
let handed: { clientId: string; secret: string } | null = null;

export function handOverSecret(clientId: string, secret: string): void {
    handed = { clientId, secret };
}

export function takeSecret(clientId: string): string | null {
    const secret = handed?.clientId === clientId ? handed.secret : null;
    handed = null;
    return secret;
}
