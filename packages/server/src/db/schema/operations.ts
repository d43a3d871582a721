import type { Generated } from 'kysely';
import type { DbDate } from './columns.js';

/*
 * The event log, its daily aggregates and the worker's sweep leases.
 */

export interface EventTable {
    id: string;
    name: string;
    scope: string;
    ref_type: string;
    ref_id: string | null;
    actor_type: string | null;
    actor_id: string | null;
    realm_id: string | null;
    request_ip: string | null;
    request_method: string | null;
    request_path: string | null;
    /** JSON; never a withheld column */
    data: string | null;
    created_at: DbDate;
    /** migration 0012: 1 once the worker's pass has added the event to its day's aggregate */
    aggregated: Generated<number>;
}

export interface EventAggregateTable {
    id: string;
    day: string;
    realm_id: string | null;
    scope: string;
    name: string;
    ref_type: string;
    count: number;
}

/** A sweep's lease (migration 0008): the worker process holding it runs the sweep until expires_at. */
export interface WorkerLeaseTable {
    name: string;
    holder: string;
    expires_at: DbDate;
}
