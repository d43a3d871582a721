import type { ListQuery } from '@realmgate/client';

/**
 * Every row of a list read, page by page at the API's maximum of 100 (API.md §2), for the choosers
 * of a binding form (a role's permissions: the built-in permissions alone are more than one page).
 * Bounded, so a huge collection cannot hang a page.
 */
export async function allRows<Row>(read: (query: ListQuery) => Promise<{ data: Row[]; meta: { total: number } }>, query: ListQuery = {}, maxPages = 20): Promise<Row[]> {
    const rows: Row[] = [];
    for (let page = 0; page < maxPages; page++) {
        const answer = await read({ ...query, page: { limit: 100, offset: page * 100 } });
        rows.push(...answer.data);
        if (rows.length >= answer.meta.total || answer.data.length === 0) break;
    }
    return rows;
}

/** Rows a realm's page may bind: the realm's own and the global ones (realmId null). */
export const ofRealm = <Row extends { realmId?: string | null }>(rows: Row[], realmId: string): Row[] =>
    rows.filter((row) => row.realmId === null || row.realmId === undefined || row.realmId === realmId);
