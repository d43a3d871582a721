import { isIP } from 'node:net';
import { Client, InvalidCredentialsError, type Entry } from 'ldapts';
import type { ProviderRow } from '../storage/identity-providers.js';
import { fromDbBool } from '../db/values.js';
import { fillFilter } from './ldap-filter.js';
import { UpstreamUnavailableError, type UpstreamIdentity } from './upstream-identity.js';
import { connectHostOf, type OutboundPolicy } from '../outbound/address-policy.js';
import { resolveOutbound } from '../outbound/guarded-lookup.js';

/** Each directory operation (connect, bind, search) gives up after this when the provider sets no timeout. */
export const DEFAULT_UPSTREAM_TIMEOUT = 5000;
const DEFAULT_USER_FILTER = '(uid={{username}})';

/**
 * The directory's URL with its host replaced by the one address the outbound policy admitted
 * (ldapts takes no `lookup`): the socket goes where the check looked, so a name cannot resolve to
 * a public address for the check and a private one for the connection. TLS still verifies the
 * certificate against the name written (`servername`).
 */
async function checkedTarget(provider: ProviderRow, outbound: OutboundPolicy): Promise<{ url: string; servername: string | undefined }> {
    const written = new URL(provider.url ?? '');
    const host = connectHostOf(written);
    const { address, family } = await resolveOutbound(outbound, host);
    const url = new URL(written.href);
    url.hostname = family === 6 ? `[${address}]` : address;
    return { url: url.href, servername: isIP(host.replace(/^\[|\]$/g, '')) === 0 ? host : undefined };
}

async function clientOf(provider: ProviderRow, outbound: OutboundPolicy): Promise<{ client: Client; servername: string | undefined }> {
    const timeout = provider.timeout ?? DEFAULT_UPSTREAM_TIMEOUT;
    const { url, servername } = await checkedTarget(provider, outbound);
    const tls = { rejectUnauthorized: fromDbBool(provider.tls_reject_unauthorized), ...(servername ? { servername } : {}) };
    const client = new Client({
        url,
        timeout,
        connectTimeout: timeout,
        // ldapts speaks TLS from the first byte whenever tlsOptions is given: only for ldaps://
        ...(url.toLowerCase().startsWith('ldaps:') ? { tlsOptions: tls } : {}),
    });
    return { client, servername };
}

async function connected(provider: ProviderRow, outbound: OutboundPolicy, bind?: { dn: string; password: string }): Promise<Client> {
    const { client, servername } = await clientOf(provider, outbound);
    if (fromDbBool(provider.start_tls)) await client.startTLS({ rejectUnauthorized: fromDbBool(provider.tls_reject_unauthorized), ...(servername ? { servername } : {}) });
    if (bind) await client.bind(bind.dn, bind.password);
    return client;
}

const firstValue = (entry: Entry, name: string): string | null => {
    const value = entry[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first === undefined) return null;
    return Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
};

/** An entry's attributes as claims: single values as strings, several as lists. */
function claimsOf(entry: Entry): Record<string, unknown> {
    const claims: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(entry)) {
        // a password (hash) is never a claim: a mapping must not copy it into a user attribute
        if (name === 'dn' || /password/i.test(name)) continue;
        const values = (Array.isArray(value) ? value : [value]).map((item) => (Buffer.isBuffer(item) ? item.toString('utf8') : String(item)));
        claims[name] = values.length === 1 ? values[0] : values;
    }
    return claims;
}

async function closing<T>(client: Client, work: () => Promise<T>): Promise<T> {
    try {
        return await work();
    } finally {
        await client.unbind().catch(() => undefined);
    }
}

/**
 * An LDAP login (RFC 4515 filter escaping): search then bind. The service binds with the provider's bind DN
 * (or anonymously), finds exactly one entry by `userFilter` with the login name inserted as an
 * escaped literal (RFC 4515; spec Authentication 19), then binds as that entry with the password
 * given; the groups are the entries `groupFilter` finds with the user's DN and name inserted the
 * same way. Null: no such entry, several, or a wrong password. A directory that cannot be reached
 * or answers an error throws UpstreamUnavailableError, bounded by the provider's timeout.
 */
export async function ldapLogin(provider: ProviderRow, bindPassword: string | null, username: string, password: string, outbound: OutboundPolicy): Promise<UpstreamIdentity | null> {
    // RFC 4513 §5.1.2: a simple bind with a DN and an empty password is an unauthenticated bind,
    // which a directory may accept without checking anything; it is never a login
    if (password === '' || username === '') return null;
    const service = provider.bind_dn ? { dn: provider.bind_dn, password: bindPassword ?? '' } : undefined;
    try {
        const client = await connected(provider, outbound, service);
        const found = await closing(client, async () => {
            const filter = fillFilter(provider.user_filter ?? DEFAULT_USER_FILTER, { username });
            const { searchEntries } = await client.search(provider.base_dn ?? '', { scope: 'sub', filter, sizeLimit: 2 });
            if (searchEntries.length !== 1) return null;
            const entry = searchEntries[0]!;
            let groups: string[] = [];
            if (provider.group_filter) {
                const groupFilter = fillFilter(provider.group_filter, { username, dn: entry.dn });
                const nameAttribute = provider.group_name_attribute ?? 'cn';
                const result = await client.search(provider.group_base_dn ?? provider.base_dn ?? '', { scope: 'sub', filter: groupFilter, attributes: [nameAttribute] });
                groups = result.searchEntries.map((group) => firstValue(group, nameAttribute)).filter((name): name is string => name !== null);
            }
            return { entry, groups };
        });
        if (!found) return null;
        const user = await connected(provider, outbound);
        const bound = await closing(user, async () => {
            try {
                await user.bind(found.entry.dn, password);
                return true;
            } catch (error) {
                if (error instanceof InvalidCredentialsError) return false;
                throw error;
            }
        });
        if (!bound) return null;
        const email = firstValue(found.entry, provider.email_attribute ?? 'mail');
        return {
            subject: found.entry.dn,
            username: firstValue(found.entry, provider.username_attribute ?? 'uid') ?? username,
            email,
            // a directory's address is the organisation's own record, not a self-asserted one
            emailVerified: email !== null,
            claims: claimsOf(found.entry),
            groups: found.groups,
        };
    } catch (error) {
        if (error instanceof UpstreamUnavailableError) throw error;
        throw new UpstreamUnavailableError(`The directory of identity provider ${provider.name} could not be used: ${(error as Error).message}`);
    }
}
