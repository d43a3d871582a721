import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { classifyDbError } from '../db/errors.js';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/** The scopes a user granted a client (consent remembered per user and client); empty when none. */
export async function findConsentedScopes(db: Kysely<Database>, userId: string, clientId: string): Promise<string[]> {
    const row = await db.selectFrom('auth_user_consents').select('scopes')
        .where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst();
    return row ? row.scopes.split(' ').filter(Boolean) : [];
}

/** Adds scopes to what the user granted the client (one row per pair; a concurrent first grant merges). */
export async function recordConsent(
    db: Kysely<Database>,
    dialect: DialectName,
    consent: { userId: string; clientId: string; realmId: string; scopes: readonly string[] },
): Promise<void> {
    const now = toDbDate(dialect, new Date());
    const merge = async (): Promise<boolean> => {
        const known = await db.selectFrom('auth_user_consents').select('scopes')
            .where('user_id', '=', consent.userId).where('client_id', '=', consent.clientId).executeTakeFirst();
        if (!known) return false;
        const scopes = [...new Set([...known.scopes.split(' ').filter(Boolean), ...consent.scopes])].join(' ');
        await db.updateTable('auth_user_consents').set({ scopes, updated_at: now })
            .where('user_id', '=', consent.userId).where('client_id', '=', consent.clientId).execute();
        return true;
    };
    if (await merge()) return;
    try {
        await db.insertInto('auth_user_consents').values({
            id: randomUUID(), user_id: consent.userId, client_id: consent.clientId, realm_id: consent.realmId,
            scopes: [...new Set(consent.scopes)].join(' '), created_at: now, updated_at: now,
        }).execute();
    } catch (error) {
        if (classifyDbError(error)?.kind !== 'unique') throw error;
        await merge();
    }
}
