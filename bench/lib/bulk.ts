/**
 * Realm-count scaling data: many realms, each with clients, users and roles. Realms are created
 * through POST /realms (their signing and encryption keys are the server's to make); seeding
 * 20,000 users and clients through the API would take most of the time budget, so one client, one
 * user and one role are written through the API and cloned in SQL batches, with fresh ids and
 * names and with their creation events — row for row what the API would have written.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inParallel, type Api } from './api.js';
import type { BenchDatabase } from './database.js';

export interface BulkPlan {
    realms: number;
    clients: number;
    users: number;
    roles: number;
}

type Row = Record<string, unknown>;
// the handle is typed with the server schema; cloning works on any table's rows generically
type AnyDb = Kysely<Record<string, Row>>;

/** Columns the database computes (COALESCE keys of the unique constraints); never inserted. */
const GENERATED = new Set(['realm_key', 'client_key', 'parent_key']);
const BATCH = 400;

interface Template {
    table: string;
    row: Row;
    events: Row[];
}

async function template(db: AnyDb, table: string, id: string): Promise<Template> {
    const row = await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const events = await db.selectFrom('auth_events').selectAll().where('ref_id', '=', id).execute();
    for (const column of GENERATED) delete row[column];
    return { table, row, events };
}

function cloneEvent(event: Row, refId: string, realmId: string, name: string): Row {
    const data = typeof event.data === 'string' ? JSON.parse(event.data) as Row : null;
    return {
        ...event, id: randomUUID(), ref_id: refId, realm_id: realmId,
        data: data ? JSON.stringify({ ...data, id: refId, name, realmId }) : event.data,
    };
}

async function insertBatches(db: AnyDb, table: string, rows: Row[]): Promise<void> {
    for (let start = 0; start < rows.length; start += BATCH) {
        await db.insertInto(table).values(rows.slice(start, start + BATCH)).execute();
    }
}

export async function seedBulk(api: Api, database: BenchDatabase, plan: BulkPlan): Promise<void> {
    const realmIds = await inParallel(Array.from({ length: plan.realms }, (_, i) => i), 4, (i) => api.create('realms', { name: `bulk-${String(i).padStart(4, '0')}` }));
    const first = realmIds[0]!;
    const ids = {
        auth_clients: await api.create('clients', { realmId: first, name: 'template-client', secret: randomUUID() }),
        auth_users: await api.create('users', { realmId: first, name: 'template-user', password: randomUUID() }),
        auth_roles: await api.create('roles', { realmId: first, name: 'template-role' }),
    };
    const counts = { auth_clients: plan.clients, auth_users: plan.users, auth_roles: plan.roles };
    const handle = await database.open();
    try {
        const db = handle.db as unknown as AnyDb;
        const templates = await Promise.all(Object.entries(ids).map(([table, id]) => template(db, table, id)));
        // a realm at a time, in one transaction: bounded memory, and a failed batch leaves no half realm
        for (const realmId of realmIds) {
            await db.transaction().execute(async (tx) => {
                for (const { table, row, events } of templates) {
                    const rows: Row[] = [];
                    const eventRows: Row[] = [];
                    // the template itself already fills one slot of the first realm
                    const count = counts[table as keyof typeof counts] - (realmId === first ? 1 : 0);
                    for (let n = 0; n < count; n++) {
                        const id = randomUUID();
                        const name = `${String(row.name)}-${n}`;
                        rows.push({ ...row, id, name, realm_id: realmId });
                        for (const event of events) eventRows.push(cloneEvent(event, id, realmId, name));
                    }
                    await insertBatches(tx, table, rows);
                    await insertBatches(tx, 'auth_events', eventRows);
                }
            });
        }
    } finally {
        await handle.destroy();
    }
}
