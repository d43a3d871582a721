import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbDate } from '../db/values.js';
import type { RowCondition } from './resource/rows.js';

/*
 * What a user has granted and linked, as the account console lists it: the
 * consents it gave clients (auth_user_consents, written by storage/consents.ts) and the upstream
 * identities linked to it (auth_user_identities, written by federation/provision.ts).
 */

export interface ConsentRow {
    id: string;
    userId: string;
    clientId: string;
    realmId: string;
    scopes: string[];
    clientName: string;
    clientDisplayName: string | null;
    createdAt: Date;
    updatedAt: Date;
}

export interface IdentityLinkRow {
    id: string;
    userId: string;
    realmId: string;
    providerId: string;
    providerName: string;
    providerDisplayName: string | null;
    protocol: string;
    subject: string;
    createdAt: Date;
    updatedAt: Date;
}

function consentQuery(db: Kysely<Database>) {
    return db.selectFrom('auth_user_consents as c').innerJoin('auth_clients as k', 'k.id', 'c.client_id')
        .select(['c.id', 'c.user_id', 'c.client_id', 'c.realm_id', 'c.scopes', 'c.created_at', 'c.updated_at', 'k.name', 'k.display_name']);
}

type ConsentSelection = Awaited<ReturnType<ReturnType<typeof consentQuery>['executeTakeFirstOrThrow']>>;

function consentOf(row: ConsentSelection): ConsentRow {
    return {
        id: row.id, userId: row.user_id, clientId: row.client_id, realmId: row.realm_id, scopes: row.scopes.split(' ').filter(Boolean),
        clientName: row.name, clientDisplayName: row.display_name, createdAt: fromDbDate(row.created_at), updatedAt: fromDbDate(row.updated_at),
    };
}

export async function listConsentsOfUser(db: Kysely<Database>, userId: string): Promise<ConsentRow[]> {
    return (await consentQuery(db).where('c.user_id', '=', userId).orderBy('k.name').orderBy('c.id').execute()).map(consentOf);
}

export async function findConsent(db: Kysely<Database>, id: string): Promise<ConsentRow | undefined> {
    const row = await consentQuery(db).where('c.id', '=', id.toLowerCase()).executeTakeFirst();
    return row && consentOf(row);
}

export async function deleteConsent(db: Kysely<Database>, id: string): Promise<void> {
    await db.deleteFrom('auth_user_consents').where('id', '=', id).execute();
}

function linkQuery(db: Kysely<Database>) {
    return db.selectFrom('auth_user_identities as i').innerJoin('auth_identity_providers as p', 'p.id', 'i.provider_id')
        .select(['i.id', 'i.user_id', 'i.realm_id', 'i.provider_id', 'i.subject', 'i.created_at', 'i.updated_at', 'p.name', 'p.display_name', 'p.protocol']);
}

type LinkSelection = Awaited<ReturnType<ReturnType<typeof linkQuery>['executeTakeFirstOrThrow']>>;

function linkOf(row: LinkSelection): IdentityLinkRow {
    return {
        id: row.id, userId: row.user_id, realmId: row.realm_id, providerId: row.provider_id, providerName: row.name,
        providerDisplayName: row.display_name, protocol: row.protocol, subject: row.subject,
        createdAt: fromDbDate(row.created_at), updatedAt: fromDbDate(row.updated_at),
    };
}

export async function listIdentityLinksOfUser(db: Kysely<Database>, userId: string): Promise<IdentityLinkRow[]> {
    return (await linkQuery(db).where('i.user_id', '=', userId).orderBy('p.name').orderBy('i.id').execute()).map(linkOf);
}

export async function findIdentityLink(db: Kysely<Database>, id: string): Promise<IdentityLinkRow | undefined> {
    const row = await linkQuery(db).where('i.id', '=', id.toLowerCase()).executeTakeFirst();
    return row && linkOf(row);
}

export async function deleteIdentityLink(db: Kysely<Database>, id: string): Promise<void> {
    await db.deleteFrom('auth_user_identities').where('id', '=', id).execute();
}

/** Whether the user could still sign in without its links: a local password of its own. */
export async function userHasPassword(db: Kysely<Database>, userId: string): Promise<boolean> {
    const row = await db.selectFrom('auth_users').select('password').where('id', '=', userId).executeTakeFirst();
    return typeof row?.password === 'string' && row.password !== '';
}

/** The user a request names: its realm, for the decision about it. */
export async function findUserRealm(db: Kysely<Database>, userId: string): Promise<{ id: string; realmId: string } | undefined> {
    const row = await db.selectFrom('auth_users').select(['id', 'realm_id']).where('id', '=', userId.toLowerCase()).executeTakeFirst();
    return row && { id: row.id, realmId: row.realm_id };
}

/** The live and ended sessions a user holds through one client (a withdrawn consent ends them). */
export function sessionsOfUserThroughClient(userId: string, clientId: string): RowCondition {
    return (eb) => eb.and([eb('auth_sessions.user_id', '=', userId), eb('auth_sessions.client_id', '=', clientId)]);
}
