import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { bareHost, OutboundRefusedError, type OutboundPolicy } from './address-policy.js';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The resolver the guard asks (node:dns by default; tests give one that answers a chosen address). */
export type Resolver = (host: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (host, callback) => dnsLookup(host, { all: true, verbatim: true }, callback);

/**
 * A `lookup` for net / http / tls connections that refuses a name when any address it resolves to
 * is refused by the policy. Judging the addresses the socket is about to use — not a lookup made
 * earlier — is what stops DNS rebinding (a name answering a public address when written and
 * 10.0.0.1 when connected). Every address must pass, so a name cannot smuggle a private address
 * beside a public one.
 */
export function guardedLookup(policy: OutboundPolicy, resolver: Resolver = systemResolver) {
    return (host: string, options: LookupOptions | number | undefined, callback: LookupCallback): void => {
        const all = typeof options === 'object' && options.all === true;
        const family = typeof options === 'number' ? options : options?.family;
        resolver(host, (error, found) => {
            if (error) return callback(error, all ? [] : '');
            const addresses = family === 4 || family === 6 ? found.filter((entry) => entry.family === family) : found;
            for (const entry of found) {
                const reason = policy.refusalOfAddress(entry.address, host);
                if (reason !== null) return callback(new OutboundRefusedError(host, reason) as NodeJS.ErrnoException, all ? [] : '');
            }
            if (addresses.length === 0) {
                return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }), all ? [] : '');
            }
            if (all) return callback(null, addresses);
            return callback(null, addresses[0]!.address, addresses[0]!.family);
        });
    };
}

/**
 * The one address a connection to `host` may use, judged like `guardedLookup` (an address literal
 * is judged as it is): for clients that take no `lookup` (ldapts), which then connect to this
 * address rather than resolving the name again.
 */
export async function resolveOutbound(policy: OutboundPolicy, host: string, resolver: Resolver = systemResolver): Promise<LookupAddress> {
    const bare = bareHost(host);
    const family = isIP(bare);
    if (family !== 0) {
        const reason = policy.refusalOfAddress(bare);
        if (reason !== null) throw new OutboundRefusedError(bare, reason);
        return { address: bare, family };
    }
    const lookup = guardedLookup(policy, resolver);
    return new Promise((resolve, reject) => {
        lookup(bare, { all: true }, (error, addresses) => {
            if (error) reject(error);
            else resolve((addresses as LookupAddress[])[0]!);
        });
    });
}
