import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbBool, type DialectName } from '../db/values.js';
import { eventRowOf, insertEvents } from '../storage/events.js';
import {
    ensureFolderPath, findLinkedUser, findProviderMappings, findUserEmail, findUsersByEmail, insertIdentityLink, insertProvisionedUser,
    setUserAttribute, setUserFolder, syncMappedRoles, updateMappedUserFields, userNameTaken,
    type MappedTextColumn, type MappedUserColumns, type ProviderMappings, type ProviderRow,
} from '../storage/identity-providers.js';
import { protocolTransaction } from '../storage/write-transaction.js';
import { grantDefaultRoles } from '../storage/default-roles.js';
import { AccountLinkRefusedError, type UpstreamIdentity } from './upstream-identity.js';

const USER_COLUMNS: Readonly<Record<string, MappedTextColumn>> = { email: 'email', firstName: 'first_name', lastName: 'last_name', displayName: 'display_name' };
/** A folder name (domains/paths.ts): no slash, at most 128 characters. */
const FOLDER_NAME = /^[^/]{1,128}$/;
/** A user name (domains/users/identity-rules.ts IDENTITY_NAME_PATTERN), up to 128 characters. */
const USER_NAME = /^[^\s:/@][^\s:/]{0,127}$/;

const valuesOf = (value: unknown): string[] => {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value.flatMap(valuesOf);
    return typeof value === 'object' ? [JSON.stringify(value)] : [String(value)];
};

/** The name a new user gets: the upstream login name when it is a valid name free in the realm, else one derived from the provider. */
async function freeUserName(db: Kysely<Database>, realmId: string, provider: ProviderRow, identity: UpstreamIdentity): Promise<string> {
    const wanted = identity.username ?? identity.email?.split('@')[0] ?? null;
    if (wanted && USER_NAME.test(wanted) && !(await userNameTaken(db, realmId, wanted))) return wanted;
    const base = (wanted && USER_NAME.test(wanted) ? wanted : provider.name.replace(/[\s:/@]/g, '-')).slice(0, 100);
    return `${base}-${randomUUID().slice(0, 8)}`;
}

/** The folder a folder mapping files the user under (its value, under targetName), or null when none applies. */
function mappedFolder(mappings: ProviderMappings, identity: UpstreamIdentity): string[] | null {
    for (const mapping of mappings.attributes) {
        if (mapping.target !== 'folder') continue;
        const value = valuesOf(identity.claims[mapping.source])[0];
        if (value === undefined || !FOLDER_NAME.test(value)) continue;
        return [...(mapping.targetName ? mapping.targetName.split('/') : []), value];
    }
    return null;
}

/** The roles matched by the upstream's values (LDAP: group names; OIDC/OAuth 2.0: the mapping's claim, default `groups`). */
function matchedRoles(provider: ProviderRow, mappings: ProviderMappings, identity: UpstreamIdentity): Set<string> {
    const matched = new Set<string>();
    for (const mapping of mappings.roles) {
        const values = provider.protocol === 'ldap' ? identity.groups : valuesOf(identity.claims[mapping.claim ?? 'groups']);
        if (values.includes(mapping.value)) matched.add(mapping.roleId);
    }
    return matched;
}

/** Mapped user fields and attributes, applied on every login (spec States "first login"). */
async function applyAttributes(tx: Kysely<Database>, dialect: DialectName, userId: string, realmId: string, mappings: ProviderMappings, identity: UpstreamIdentity, now: Date): Promise<void> {
    const columns: MappedUserColumns = {};
    for (const mapping of mappings.attributes) {
        const value = valuesOf(identity.claims[mapping.source]);
        if (value.length === 0) continue;
        if (mapping.target === 'field' && mapping.targetName && USER_COLUMNS[mapping.targetName]) {
            columns[USER_COLUMNS[mapping.targetName]!] = value[0]!.slice(0, 255);
        } else if (mapping.target === 'attribute' && mapping.targetName) {
            // stored as the attribute collection stores values: JSON text, a string stays a string
            const stored = JSON.stringify(value.length === 1 ? value[0] : value);
            await setUserAttribute(tx, dialect, { userId, realmId, name: mapping.targetName, value: stored }, now);
        }
    }
    let emailChanged = false;
    if (columns.email !== undefined) {
        const stored = await findUserEmail(tx, userId);
        const mapped = columns.email?.toLowerCase() ?? null;
        // a mailbox's case is not an identity: only another address is a change
        emailChanged = (stored?.email?.toLowerCase() ?? null) !== mapped;
        // OIDC Core §5.1: the upstream vouches only for the address it names with email_verified true
        const vouched = identity.emailVerified && identity.email !== null && identity.email.toLowerCase() === mapped;
        // a new address is as verified as the upstream says; the same one keeps a verification made here
        columns.email_verified = emailChanged ? vouched : (stored?.emailVerified ?? false) || vouched;
    }
    await updateMappedUserFields(tx, dialect, userId, columns, now, emailChanged);
}

/**
 * The local account an upstream login links to by its address (`linkVerifiedEmail`), compared
 * case-normalised. Only an address verified on both sides links: the upstream says so
 * (email_verified, OIDC Core §5.1) and the local account proved it here. Otherwise an account that
 * holds the address refuses the login (account pre-hijacking: whoever registered the address first
 * without proving it must never receive the upstream's login, and a second account with the same
 * address would split the person in two); the user signs in locally and verifies the address first.
 */
async function accountByEmail(tx: Kysely<Database>, provider: ProviderRow, identity: UpstreamIdentity): Promise<string | undefined> {
    if (!identity.email || !fromDbBool(provider.link_verified_email)) return undefined;
    const matches = await findUsersByEmail(tx, provider.realm_id, identity.email);
    if (matches.length === 0) return undefined;
    if (identity.emailVerified && matches.length === 1 && matches[0]!.emailVerified) return matches[0]!.id;
    throw new AccountLinkRefusedError('An upstream login names the address of a local account it may not be linked to.');
}

export interface ProvisionDeps {
    db: Kysely<Database>;
    dialect: DialectName;
}

/**
 * The user an upstream login signs in as (spec States "first login"): the user linked to
 * the upstream subject; else — only when the provider allows it and both sides verified the
 * address — the one user of the realm with that email, then linked (`accountByEmail`, which throws
 * AccountLinkRefusedError when an account holds the address but may not be linked); else a new user, filed under
 * `sources/<provider name>` unless a folder mapping applies (a folder that cannot be created leaves
 * the user unfiled, and the login goes on). Mapped fields, attributes and roles are applied on every
 * login. One transaction: the link, the user and its mappings exist together or not at all.
 */
export async function provisionUser(deps: ProvisionDeps, provider: ProviderRow, identity: UpstreamIdentity, now = new Date()): Promise<{ userId: string; created: boolean }> {
    const mappings = await findProviderMappings(deps.db, provider.id);
    const realmId = provider.realm_id;
    const result = await protocolTransaction(deps.db, async (tx) => {
        let userId = await findLinkedUser(tx, provider.id, identity.subject);
        let created = false;
        if (!userId) {
            userId = await accountByEmail(tx, provider, identity);
            if (userId) await insertIdentityLink(tx, deps.dialect, { providerId: provider.id, userId, realmId, subject: identity.subject }, now);
        }
        if (!userId) {
            userId = randomUUID();
            created = true;
            const name = await freeUserName(tx, realmId, provider, identity);
            await insertProvisionedUser(tx, deps.dialect, {
                id: userId, realmId, name, email: identity.email?.slice(0, 255) ?? null, emailVerified: identity.emailVerified && identity.email !== null, pathId: null,
            }, now);
            await insertIdentityLink(tx, deps.dialect, { providerId: provider.id, userId, realmId, subject: identity.subject }, now);
            // API.md §8: the realm's default roles, before the provider's role mappings apply (which
            // may take a mapped role away again when the upstream does not match it)
            await grantDefaultRoles(tx, deps.dialect, { id: userId, realmId }, { scope: 'auth', actorType: 'user', actorId: userId }, now);
            const folder = mappedFolder(mappings, identity) ?? ['sources', provider.name];
            // checked before writing: a failed insert would abort the whole transaction on PostgreSQL
            if (folder.every((part) => FOLDER_NAME.test(part))) await setUserFolder(tx, deps.dialect, userId, await ensureFolderPath(tx, deps.dialect, realmId, folder, now), now);
            await insertEvents(tx, [eventRowOf(deps.dialect, {
                name: 'user.created', scope: 'auth', refType: 'user', refId: userId, realmId,
                data: { id: userId, name, realmId, providerId: provider.id }, actorType: 'user', actorId: userId,
            }, now)]);
        }
        await applyAttributes(tx, deps.dialect, userId, realmId, mappings, identity, now);
        await syncMappedRoles(tx, deps.dialect, userId, [...new Set(mappings.roles.map((mapping) => mapping.roleId))], matchedRoles(provider, mappings, identity), now);
        return { userId, created };
    });
    return result;
}
