import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../../db/connect.js';
import type { Database } from '../../db/schema.js';

/**
 * What the generic resource engine needs from the process: the database (its handle names the
 * dialect, which decides row locks and value encodings) and the authorization catalog, invalidated
 * after a write that changes policies or grants. Transport-free: the HTTP layer adds its own.
 */
export interface ResourceDeps {
    handle: DatabaseHandle;
    db: Kysely<Database>;
    catalog: { invalidate(): void };
}
