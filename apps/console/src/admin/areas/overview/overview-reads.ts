import type { RealmgateClient } from '@realmgate/client';
import { chartStart, dayBuckets, type DayCount } from '../events/day-buckets.js';

/**
 * The reads of a realm's overview, each one request: a collection's total (a page of one row, its
 * `meta.total`, API.md §2), the sign-ins per day over 30 days (GET /realms/:realm/events/@stats,
 * `session.created` is written at each sign-in) and the newest events.
 */
export type Counted = 'users' | 'clients' | 'roles' | 'sessions';

export async function totalOf(api: RealmgateClient, realmId: string, collection: Counted): Promise<number> {
    // live sessions only: a revoked one no longer signs anyone in
    const filter = collection === 'sessions' ? { revokedAt: 'null' } : undefined;
    const answer = await api.request(`GET /realms/{realmId}/${collection}` as 'GET /realms/{realmId}/users', {
        params: { realmId }, query: { page: { limit: 1 }, ...(filter ? { filter } : {}) } as never,
    }) as { meta: { total: number } };
    return answer.meta.total;
}

export async function signInsPerDay(api: RealmgateClient, realmId: string, now: Date): Promise<DayCount[]> {
    const answer = await api.request('GET /realms/{realmId}/events/@stats', {
        params: { realmId },
        query: { group: 'bucket(createdAt,day)', 'filter[createdAt]': `>=${chartStart(now).toISOString()}`, 'filter[name]': 'session.created' } as never,
    });
    return dayBuckets(now, answer.data);
}

export interface RecentEvent { id?: string | null; name?: string | null; refType?: string | null; refId?: string | null; actorType?: string | null; actorId?: string | null; createdAt?: string | null }

export async function recentEvents(api: RealmgateClient, realmId: string, count = 10): Promise<RecentEvent[]> {
    const answer = await api.request('GET /realms/{realmId}/events', { params: { realmId }, query: { sort: ['-createdAt'], page: { limit: count } } as never }) as { data: RecentEvent[] };
    return answer.data;
}
