import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { MASTER_REALM, ScopeName } from '@realmgate/core';
import { ADMIN_CONSOLE_CLIENT, CONSOLE_NAMES, consoleUrl, deployedStandaloneConsoleUrl, type ConsoleSettings } from '../config/consoles.js';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { ensureBuiltInClient, ensureClientScope } from './bootstrap.js';

/** Where the consoles are reached: PUBLIC_URL (served by the API) and a standalone console (config/consoles.ts). */
export interface ConsoleOrigins extends ConsoleSettings {
    publicUrl?: string | undefined;
}

/** The consoles' redirect (and post-logout redirect) URIs, `/console/admin/` and `/console/account/` under each origin; none without PUBLIC_URL. */
export function consoleRedirectUris(origins: ConsoleOrigins): string[] {
    if (origins.publicUrl === undefined) return [];
    const bases = [...new Set([origins.publicUrl, deployedStandaloneConsoleUrl(origins) ?? origins.publicUrl])];
    return bases.flatMap((base) => CONSOLE_NAMES.map((name) => consoleUrl(base, name)));
}

/**
 * The public client `admin-console` of one realm (spec beta.66 item 4; Keycloak's per-realm
 * console clients): a realm's users sign in to the consoles through their own realm's client,
 * since /authorize signs in only users of the client's realm. First-party (no consent), code +
 * PKCE with refresh (no secret, so PKCE S256 is required), the `global` scope bound by default
 * (without it a bearer is evaluated without its identity: spec Authorization routes, check rule 1).
 * The master realm's keeps the fixed id a standalone console names without a database; the
 * others get a random id, published in their discovery document (oauth2/discovery.ts).
 * Idempotent: an existing client only gets its redirect URIs brought up to date. No URIs (no
 * PUBLIC_URL) → nothing is created.
 */
export async function ensureConsoleClient(
    db: Kysely<Database>, dialect: DialectName, realm: { id: string; name: string }, uris: readonly string[],
): Promise<string | null> {
    if (uris.length === 0) return null;
    const clientId = await ensureBuiltInClient(db, dialect, {
        id: realm.name === MASTER_REALM ? ADMIN_CONSOLE_CLIENT.id : randomUUID(),
        name: ADMIN_CONSOLE_CLIENT.name, displayName: 'Realmgate consoles', realmId: realm.id,
        redirectUri: uris.join(' '), postLogoutRedirectUri: uris.join(' '),
    });
    const scope = await db.selectFrom('auth_scopes').select('id').where('name', '=', ScopeName.GLOBAL).where('realm_id', 'is', null).executeTakeFirst();
    if (scope) await ensureClientScope(db, dialect, clientId, scope.id);
    return clientId;
}

/** The id of a realm's console client, if it has one (the consoles read it from the realm's discovery document). */
export async function findConsoleClientId(db: Kysely<Database>, realmId: string): Promise<string | null> {
    const found = await db.selectFrom('auth_clients').select('id')
        .where('realm_id', '=', realmId).where('name', '=', ADMIN_CONSOLE_CLIENT.name).executeTakeFirst();
    return found?.id ?? null;
}

/** Every realm's id and name (the boot ensures each one's console client). */
export function listRealmNames(db: Kysely<Database>): Promise<{ id: string; name: string }[]> {
    return db.selectFrom('auth_realms').select(['id', 'name']).orderBy('name').execute();
}
