import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The URIs a client names for browsers: its redirect URIs (space-separated) and its base URL. */
export interface ClientBrowserUris {
    redirectUri: string | null;
    baseUrl: string | null;
}

/**
 * The clients whose redirect URIs or base URL may name `origin`. A prefilter: `LIKE` finds every
 * candidate (its `_` wildcard only widens the match, and an origin holds no `%`); the caller
 * checks each URI's exact origin.
 */
export async function findClientsNamingOrigin(db: Kysely<Database>, origin: string): Promise<ClientBrowserUris[]> {
    const rows = await db.selectFrom('auth_clients')
        .select(['redirect_uri', 'base_url'])
        .where((eb) => eb.or([eb('redirect_uri', 'like', `%${origin}%`), eb('base_url', 'like', `${origin}%`)]))
        .execute();
    return rows.map((row) => ({ redirectUri: row.redirect_uri, baseUrl: row.base_url }));
}
