/**
 * HTTP Basic credentials, decoded once for the whole server. Two RFCs define two encodings of the
 * same header, so there are two named decoders; each returns null for a header it cannot read and
 * leaves the refusal (its error code and status) to the caller.
 */

/** Whether the header uses the Basic scheme (RFC 7617 §2: the scheme name is case-insensitive). */
export function isBasicScheme(header: string | undefined): header is string {
    return header !== undefined && /^basic\s/i.test(header);
}

/**
 * RFC 7617 §2 (a user or client on the API routes): `base64(name ":" secret)`, the name and secret
 * taken verbatim as UTF-8 — no percent-decoding, so a `%` or `+` in a password stays itself.
 */
export function decodeBasicRfc7617(header: string): { name: string; secret: string } | null {
    const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
    if (!match) return null;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // a NUL can never be part of a name or secret (and PostgreSQL refuses it in text)
    if (colon <= 0 || decoded.includes('\u0000')) return null;
    return { name: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/**
 * RFC 6749 §2.3.1 (client authentication at the protocol endpoints): the client id and secret are
 * form-urlencoded (application/x-www-form-urlencoded, so `+` is a space) before they are joined
 * and base64-encoded; each part is percent-decoded here. Null when malformed.
 */
export function decodeBasicRfc6749(header: string): { id: string; secret: string } | null {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0) return null;
    try {
        const unescape = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
        return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
    } catch {
        return null;
    }
}
