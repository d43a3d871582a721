import { io, type Socket } from 'socket.io-client';
import { inject, onBeforeUnmount, type InjectionKey } from 'vue';
import type { AuthorizationSource } from '@realmgate/client';

/**
 * The realtime bus (packages/server/src/http/realtime.ts) on one socket per page:
 * `subscribe` to a collection, then an `event` ({ name, entity, id, realmId, data }) for each change
 * to a row the caller may read. Lists refresh on them, so changes made elsewhere appear without a
 * reload. Served by the API the console session cookie authenticates the socket (same origin);
 * standalone, the bearer token goes in `auth.token`.
 */
export interface EntityEvent {
    name: string;
    entity: string;
    id: string | null;
    realmId: string | null;
    data: Record<string, unknown> | null;
    createdAt: string;
}

type Listener = (event: EntityEvent) => void;

export interface Realtime {
    /** calls `listener` for every event of `collection` (rows of `entity`) until the returned function is called */
    subscribe(collection: string, entity: string, listener: Listener): () => void;
}

/**
 * The collections the server has acknowledged a subscription to, named on the document element
 * (`data-realtime-subscribed="users paths"`): from then on a change reaches the page, which is what
 * the browser tests wait for before changing a row elsewhere.
 */
function markSubscribed(collection: string, subscribed: boolean): void {
    const root = globalThis.document?.documentElement;
    if (!root) return;
    const names = new Set((root.dataset.realtimeSubscribed ?? '').split(' ').filter(Boolean));
    if (subscribed) names.add(collection);
    else names.delete(collection);
    root.dataset.realtimeSubscribed = [...names].join(' ');
}

/** subscribes `socket` to `collection`, marked once the server acknowledges it */
function join(socket: Socket, collection: string): void {
    socket.emit('subscribe', { collection }, (reply?: { ok?: boolean }) => {
        if (reply?.ok !== false) markSubscribed(collection, true);
    });
}

export function createRealtime(apiUrl: string, auth?: AuthorizationSource): Realtime {
    let socket: Socket | null = null;
    const listeners = new Map<string, Set<Listener>>();
    const entities = new Map<string, string>();

    const connect = (): Socket => {
        if (socket) return socket;
        socket = io(apiUrl, {
            path: '/socket.io', transports: ['websocket'], withCredentials: false,
            ...(auth ? { auth: (callback: (data: object) => void) => { auth.authorization().then((token) => callback({ token }), () => callback({})); } } : {}),
        });
        // a reconnection starts from nothing: subscribe again to every collection listened to
        socket.on('connect', () => { for (const collection of listeners.keys()) join(socket!, collection); });
        socket.on('event', (event: EntityEvent) => {
            for (const [collection, entity] of entities) {
                if (entity === event.entity) for (const listener of listeners.get(collection) ?? []) listener(event);
            }
        });
        return socket;
    };

    return {
        subscribe(collection, entity, listener) {
            const live = connect();
            let set = listeners.get(collection);
            if (!set) {
                set = new Set();
                listeners.set(collection, set);
                entities.set(collection, entity);
                if (live.connected) join(live, collection);
            }
            set.add(listener);
            return () => {
                set!.delete(listener);
                if (set!.size === 0) {
                    listeners.delete(collection);
                    entities.delete(collection);
                    live.emit('unsubscribe', { collection });
                    markSubscribed(collection, false);
                }
            };
        },
    };
}

export const REALTIME: InjectionKey<Realtime> = Symbol('realtime');

/** Calls `listener` on each change to `collection` (rows of `entity`, e.g. `users` / `user`) while the calling component is mounted. */
export function useRealtime(collection: string, entity: string, listener: Listener): void {
    const realtime = inject(REALTIME, null);
    if (!realtime) return;
    const stop = realtime.subscribe(collection, entity, listener);
    onBeforeUnmount(stop);
}
