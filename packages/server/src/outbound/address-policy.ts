import { BlockList, isIP } from 'node:net';

/*
 * Which hosts a URL written by a realm administrator may make the server connect to (back-channel
 * logout URIs, identity-provider endpoints, LDAP directories). Without this, an administrator of one
 * realm could aim the server at its own loopback services, the private network behind it or a cloud
 * metadata endpoint (169.254.169.254) — server-side request forgery (RFC 9700 §4.16 discusses the
 * same risk for an authorization server fetching client-supplied URLs; OWASP SSRF prevention).
 * The ranges are the special-purpose registries of RFC 6890 (IPv4 and IPv6); the operator opens
 * exceptions with OUTBOUND_ALLOWED_HOSTS.
 */

type Family = 'ipv4' | 'ipv6';

/** [network, prefix, what it is]: refused unless allowlisted */
const SPECIAL_IPV4: [string, number, string][] = [
    ['0.0.0.0', 8, 'unspecified'],
    ['10.0.0.0', 8, 'private (RFC 1918)'],
    ['100.64.0.0', 10, 'shared address space (RFC 6598, CGNAT)'],
    ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'link-local (cloud metadata endpoints live here)'],
    ['172.16.0.0', 12, 'private (RFC 1918)'],
    ['192.0.0.0', 24, 'IETF protocol assignments'],
    ['192.0.2.0', 24, 'documentation'],
    ['192.88.99.0', 24, '6to4 relay anycast'],
    ['192.168.0.0', 16, 'private (RFC 1918)'],
    ['198.18.0.0', 15, 'benchmarking'],
    ['198.51.100.0', 24, 'documentation'],
    ['203.0.113.0', 24, 'documentation'],
    ['224.0.0.0', 4, 'multicast'],
    ['240.0.0.0', 4, 'reserved (incl. broadcast)'],
];

const SPECIAL_IPV6: [string, number, string][] = [
    ['::', 128, 'unspecified'],
    ['::1', 128, 'loopback'],
    // IPv4-compatible (deprecated) addresses; IPv4-mapped ones are judged by their IPv4 address
    ['::', 96, 'IPv4-compatible'],
    ['64:ff9b:1::', 48, 'local-use IPv4/IPv6 translation'],
    ['100::', 64, 'discard-only'],
    ['2001::', 23, 'IETF protocol assignments'],
    ['2001:db8::', 32, 'documentation'],
    ['2002::', 16, '6to4 (embeds an IPv4 address)'],
    ['fc00::', 7, 'unique-local'],
    ['fe80::', 10, 'link-local'],
    ['fec0::', 10, 'site-local (deprecated)'],
    ['ff00::', 8, 'multicast'],
];

/**
 * Names that are loopback or metadata by definition, whatever a resolver says (RFC 6761 §6.3: every
 * `localhost` name is loopback), judged as the address they stand for: refused when written unless
 * the operator allows that address or the name itself.
 */
function addressOfSpecialName(host: string): string | null {
    if (host === 'localhost' || host.endsWith('.localhost')) return '127.0.0.1';
    if (host === 'metadata.google.internal') return '169.254.169.254';
    return null;
}

/**
 * A loopback host as a URL's hostname writes it (`localhost`, `127.x.x.x`, `[::1]`): where plain
 * http is acceptable, since the traffic never leaves the machine (RFC 8252 §7.3, §8.3).
 */
export function isLoopbackHost(hostname: string): boolean {
    const bare = bareHost(hostname);
    return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** `[::1]` → `::1`, lower case, without a trailing root dot */
export function bareHost(host: string): string {
    const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    return unbracketed.toLowerCase().replace(/\.$/, '');
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, `::ffff:7f00:1`) carries, if it is one. */
function mappedIpv4(address: string): string | null {
    let canonical: string;
    try {
        // the WHATWG serializer gives one compressed form, hexadecimal words included
        canonical = new URL(`http://[${address}]/`).hostname;
    } catch {
        return null;
    }
    const words = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
    if (!words) return null;
    const high = parseInt(words[1]!, 16);
    const low = parseInt(words[2]!, 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export class OutboundRefusedError extends Error {
    constructor(readonly host: string, readonly reason: string) {
        super(`${host} is ${reason}: outbound connections there are refused unless OUTBOUND_ALLOWED_HOSTS allows it`);
        this.name = 'OutboundRefusedError';
    }
}

export interface OutboundPolicy {
    /** why a host as written (a name or an address literal) must not be reached; null: allowed so far (a name is judged again by its addresses) */
    refusalOfHost(host: string): string | null;
    /** why a resolved address must not be reached; a host name the operator allowlisted reaches any of its addresses */
    refusalOfAddress(address: string, host?: string): string | null;
}

function rangeList(entries: [string, number, string][], family: Family): { list: BlockList; reason: string }[] {
    return entries.map(([network, prefix, reason]) => {
        const list = new BlockList();
        list.addSubnet(network, prefix, family);
        return { list, reason };
    });
}

const IPV4_RANGES = rangeList(SPECIAL_IPV4, 'ipv4');
const IPV6_RANGES = rangeList(SPECIAL_IPV6, 'ipv6');

/** The special-purpose range an address is in, if any. */
function specialRangeOf(address: string): string | null {
    const bare = bareHost(address);
    const mapped = isIP(bare) === 6 ? mappedIpv4(bare) : null;
    const target = mapped ?? bare;
    const family = isIP(target);
    if (family === 0) return null;
    const ranges = family === 4 ? IPV4_RANGES : IPV6_RANGES;
    const found = ranges.find((range) => range.list.check(target, family === 4 ? 'ipv4' : 'ipv6'));
    return found ? found.reason : null;
}

/** The policy of OUTBOUND_ALLOWED_HOSTS (config/parsers.ts `hostList` has validated each entry). */
export function createOutboundPolicy(allowedHosts: readonly string[] = []): OutboundPolicy {
    const names = new Set<string>();
    const allowed = new BlockList();
    for (const entry of allowedHosts) {
        const [address = '', prefix] = entry.split('/');
        const family = isIP(address);
        if (family === 0) names.add(bareHost(entry));
        else if (prefix === undefined) allowed.addAddress(address, family === 4 ? 'ipv4' : 'ipv6');
        else allowed.addSubnet(address, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    }
    const addressAllowed = (address: string): boolean => {
        const family = isIP(address);
        if (family === 0) return false;
        if (allowed.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
        const mapped = family === 6 ? mappedIpv4(address) : null;
        return mapped !== null && allowed.check(mapped, 'ipv4');
    };
    const refusalOfAddress = (address: string, host?: string): string | null => {
        if (host !== undefined && names.has(bareHost(host))) return null;
        const bare = bareHost(address);
        if (addressAllowed(bare)) return null;
        const reason = specialRangeOf(bare);
        return reason === null ? null : `a ${reason} address (${bare})`;
    };
    return {
        refusalOfHost(host) {
            const bare = bareHost(host);
            if (names.has(bare)) return null;
            if (isIP(bare) !== 0) return refusalOfAddress(bare);
            const standsFor = addressOfSpecialName(bare);
            const reason = standsFor === null ? null : refusalOfAddress(standsFor);
            return reason === null ? null : `${bare}, ${reason}`;
        },
        refusalOfAddress,
    };
}

/**
 * The host of a URL as a connection would use it. Only http(s) hosts are normalised by the WHATWG
 * parser (`0x7f.1`, `2130706433` → 127.0.0.1), so other schemes (ldap://) are re-read as http to
 * judge the same address the resolver will.
 */
export function connectHostOf(url: URL): string {
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.hostname;
    try {
        return new URL(`http://${url.host}`).hostname;
    } catch {
        return url.hostname;
    }
}

/** Why a URL must not be reached as written; null: allowed (its name is judged again after DNS resolution). */
export function refusalOfUrl(policy: OutboundPolicy, value: string): string | null {
    let url: URL;
    try {
        url = new URL(value);
    } catch {
        return null;
    }
    return policy.refusalOfHost(connectHostOf(url));
}
