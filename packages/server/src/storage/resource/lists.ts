import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toDbDate, type DialectName } from '../../db/values.js';
import { dynamic, type JunctionList, type ResourceTable, type StoredRow } from './table.js';

/*
 * The junction lists of a resource (table.ts JunctionList): read beside its rows, one query per list
 * for a whole page, and written as the difference from what is stored.
 */

/** The ids of each owner's list, ordered by id: a stable value on every dialect. */
async function listsOf(db: Kysely<Database>, list: JunctionList, ownerIds: readonly string[]): Promise<Map<string, string[]>> {
    const byOwner = new Map<string, string[]>(ownerIds.map((id) => [id, []]));
    if (ownerIds.length === 0) return byOwner;
    const rows: Record<string, string>[] = await dynamic(db).selectFrom(list.table).select([`${list.owner} as owner`, `${list.value} as value`])
        .where(list.owner, 'in', [...ownerIds]).orderBy(list.value).execute();
    for (const row of rows) byOwner.get(row.owner!)?.push(row.value!);
    return byOwner;
}

/** Puts each junction list of the resource on its rows (under the list's `column`); the rows, for chaining. */
export async function withLists<R extends StoredRow>(db: Kysely<Database>, table: ResourceTable, rows: R[]): Promise<R[]> {
    if (!table.lists?.length || rows.length === 0) return rows;
    const ids = rows.map((row) => row.id);
    for (const list of table.lists) {
        const byOwner = await listsOf(db, list, ids);
        for (const row of rows) (row as StoredRow)[list.column] = byOwner.get(row.id) ?? [];
    }
    return rows;
}

/**
 * Makes the owner's list exactly these ids: the ones no longer named leave it, the new ones join it.
 * A named row that does not exist (or is deleted meanwhile) fails the insert on its foreign key.
 * Whether anything changed.
 */
export async function replaceList(db: Kysely<Database>, dialect: DialectName, list: JunctionList, ownerId: string, ids: readonly string[], now: Date): Promise<boolean> {
    const current = new Set((await listsOf(db, list, [ownerId])).get(ownerId));
    const wanted = new Set(ids);
    const removed = [...current].filter((id) => !wanted.has(id));
    const added = [...wanted].filter((id) => !current.has(id));
    if (removed.length > 0) await dynamic(db).deleteFrom(list.table).where(list.owner, '=', ownerId).where(list.value, 'in', removed).execute();
    if (added.length > 0) {
        const at = toDbDate(dialect, now);
        await dynamic(db).insertInto(list.table)
            .values(added.map((id) => ({ id: randomUUID(), [list.owner]: ownerId, [list.value]: id, created_at: at, updated_at: at })))
            .execute();
    }
    return removed.length > 0 || added.length > 0;
}
