import type { RealmgateClient } from '@realmgate/client';
import { inject, reactive, type InjectionKey } from 'vue';
import type { Gate } from './gate.js';

/**
 * Names for ids (a user, client, role or realm an event, a session or a binding points at): the
 * ids a page asks for in the same tick go out as ONE list read per entity type and realm, with an
 * id filter (API.md §2: a comma list means "in"), at most 100 ids per read (the page maximum).
 * A read is only attempted when POST /authorization/check allows its read permission in that
 * realm (the gate), so a caller who may not read users sees ids, not 403s. An id the answer
 * lacks (deleted, or out of reach) is remembered as unnamed: the page shows the id itself.
 */
export type NamedKind = 'user' | 'client' | 'role' | 'realm';

export interface NameEntry {
    /** undefined while unknown, null when the entity could not be read (deleted or out of reach) */
    name: string | null | undefined;
    /** the realm the entity belongs to, as read (its page lives there) */
    realmId?: string | null;
}

export interface Names {
    /** reactive: the entry of `id`, its read queued when new */
    of(kind: NamedKind, id: string, realmId?: string | null): NameEntry;
}

interface Row { id?: string | null; name?: string | null; displayName?: string | null; realmId?: string | null }
type Page = { data: Row[] };

const READ_PERMISSION: Record<NamedKind, string> = { user: 'user_read', client: 'client_read', role: 'role_read', realm: 'realm_read' };
const MAX_IDS = 100;

/** What a person reads for an entity: a realm's display name, else its name (the others' name). */
export function nameOfRow(kind: NamedKind, row: Row): string | null {
    return (kind === 'realm' ? row.displayName || row.name : row.name) ?? null;
}

export function createNames(api: RealmgateClient, gate: Gate): Names {
    const entries = reactive(new Map<string, NameEntry>());
    let queue = new Map<string, { kind: NamedKind; realmId: string | null; ids: Set<string> }>();
    let scheduled = false;

    const keyOf = (kind: NamedKind, id: string) => `${kind}\u0000${id}`;

    function read(kind: NamedKind, realmId: string | null, ids: string[]): Promise<Page> {
        const query = { filter: { id: ids.join(',') }, page: { limit: MAX_IDS } } as never;
        if (kind === 'realm') return api.getRealms({ query }) as Promise<Page>;
        if (realmId === null) {
            const global = { user: api.getUsers, client: api.getClients, role: api.getRoles }[kind];
            return global({ query }) as Promise<Page>;
        }
        const path = { user: 'GET /realms/{realmId}/users', client: 'GET /realms/{realmId}/clients', role: 'GET /realms/{realmId}/roles' }[kind];
        return api.request(path as 'GET /realms/{realmId}/users', { params: { realmId }, query }) as Promise<Page>;
    }

    /** the names of `ids` one read finds; none when the gate denies the read or the read fails */
    async function readNames(kind: NamedKind, realmId: string | null, ids: string[], found: Map<string, Row>): Promise<void> {
        // GET /realms answers the realms the caller may read; the others' reads are gated in the realm
        if (ids.length === 0 || !(await gate.check(READ_PERMISSION[kind], kind === 'realm' ? 'own' : realmId ?? 'ownOrNull'))) return;
        try {
            for (const row of (await read(kind, realmId, ids)).data) if (row.id) found.set(row.id, row);
        } catch {
            // unreadable: the ids stay what the page shows
        }
    }

    async function resolve(kind: NamedKind, realmId: string | null, ids: string[]): Promise<void> {
        for (let start = 0; start < ids.length; start += MAX_IDS) {
            const chunk = ids.slice(start, start + MAX_IDS);
            const found = new Map<string, Row>();
            await readNames(kind, realmId, chunk, found);
            // an id of another realm (the master realm's administrator acting here, a global role):
            // one more read of the whole collection, for those alone
            if (realmId !== null && kind !== 'realm') await readNames(kind, null, chunk.filter((id) => !found.has(id)), found);
            for (const id of chunk) {
                const row = found.get(id);
                Object.assign(entries.get(keyOf(kind, id))!, { name: row ? nameOfRow(kind, row) : null, realmId: row?.realmId ?? null });
            }
        }
    }

    function flush(): void {
        scheduled = false;
        const batch = queue;
        queue = new Map();
        for (const { kind, realmId, ids } of batch.values()) void resolve(kind, realmId, [...ids]);
    }

    return {
        of(kind, id, realmId = null) {
            const key = keyOf(kind, id);
            const known = entries.get(key);
            if (known) return known;
            entries.set(key, { name: undefined });
            const batchKey = `${kind}\u0000${kind === 'realm' ? '' : realmId ?? ''}`;
            const batch = queue.get(batchKey) ?? { kind, realmId, ids: new Set<string>() };
            batch.ids.add(id);
            queue.set(batchKey, batch);
            if (!scheduled) {
                scheduled = true;
                queueMicrotask(flush);
            }
            return entries.get(key)!;
        },
    };
}

export const NAMES: InjectionKey<Names> = Symbol('names');

export function useNames(): Names {
    const names = inject(NAMES);
    if (!names) throw new Error('useNames() outside a console');
    return names;
}
