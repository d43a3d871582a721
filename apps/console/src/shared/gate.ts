import type { RealmgateClient } from '@realmgate/client';
import { inject, reactive, type InjectionKey } from 'vue';

/**
 * Gating (spec beta.66 item 1): menus, buttons and pages ask POST /authorization/check alone. The
 * answer is an upper bound on what may be attempted, never an entitlement (check rule 9): the
 * server still decides every request, and a 403 is shown as such. Questions asked in the same tick
 * go out as one batch per realm selector (at most 256 names each); answers are kept for the life
 * of the page, date or time policies included (beta.66 item 1), and reset by a reload.
 */
export type RealmSelector = 'own' | 'ownOrNull' | string;

interface Entry { name: string; realms: (string | null)[] }

export interface Gate {
    /** reactive: undefined while the answer is pending, then true or false */
    allows(name: string, realm?: RealmSelector): boolean | undefined;
    /** resolves once answered */
    check(name: string, realm?: RealmSelector): Promise<boolean>;
}

const MAX_NAMES = 256;

export function createGate(api: RealmgateClient): Gate {
    const answers = reactive(new Map<string, boolean>());
    const waiting = new Map<string, Promise<boolean>>();
    let queue = new Map<RealmSelector, Map<string, (allowed: boolean) => void>>();
    let scheduled = false;

    const keyOf = (name: string, realm: RealmSelector) => `${realm}\u0000${name}`;

    async function send(realm: RealmSelector, names: Map<string, (allowed: boolean) => void>): Promise<void> {
        const list = [...names.keys()];
        for (let start = 0; start < list.length; start += MAX_NAMES) {
            const chunk = list.slice(start, start + MAX_NAMES);
            let granted = new Set<string>();
            try {
                const realms = realm === 'own' || realm === 'ownOrNull' ? realm : [realm];
                const entries = (await api.postAuthorizationCheck({ body: { names: chunk, realms } })) as unknown as Entry[];
                // check rule 2: absent means denied
                granted = new Set(entries.map((entry) => entry.name));
            } catch {
                // no answer: every question of the batch is denied (the server decides anyway)
            }
            for (const name of chunk) {
                const allowed = granted.has(name);
                answers.set(keyOf(name, realm), allowed);
                names.get(name)!(allowed);
            }
        }
    }

    function flush(): void {
        scheduled = false;
        const batch = queue;
        queue = new Map();
        for (const [realm, names] of batch) void send(realm, names);
    }

    function check(name: string, realm: RealmSelector = 'ownOrNull'): Promise<boolean> {
        const key = keyOf(name, realm);
        const known = answers.get(key);
        if (known !== undefined) return Promise.resolve(known);
        let pending = waiting.get(key);
        if (!pending) {
            pending = new Promise<boolean>((resolve) => {
                const names = queue.get(realm) ?? new Map<string, (allowed: boolean) => void>();
                names.set(name, resolve);
                queue.set(realm, names);
            });
            waiting.set(key, pending);
            if (!scheduled) {
                scheduled = true;
                queueMicrotask(flush);
            }
        }
        return pending;
    }

    return {
        allows(name, realm = 'ownOrNull') {
            const known = answers.get(keyOf(name, realm));
            if (known === undefined) void check(name, realm);
            return known;
        },
        check,
    };
}

export const GATE: InjectionKey<Gate> = Symbol('gate');

export function useGate(): Gate {
    const gate = inject(GATE);
    if (!gate) throw new Error('useGate() outside a console');
    return gate;
}
