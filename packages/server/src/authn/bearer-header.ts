/** An access token as the Authorization header presents it: as a bearer, or DPoP-bound (RFC 9449 §7.1). */
export interface PresentedAccessToken {
    scheme: 'Bearer' | 'DPoP';
    token: string;
}

/**
 * The access token of an `Authorization: Bearer <token>` or `Authorization: DPoP <token>` header
 * (RFC 6750 §2.1, RFC 9449 §7.1: schemes case-insensitive, one token of non-space characters);
 * null for any other header.
 */
export function accessTokenOf(header: string | undefined): PresentedAccessToken | null {
    if (header === undefined) return null;
    const match = /^(Bearer|DPoP)\s+(\S+)\s*$/i.exec(header);
    if (!match) return null;
    return { scheme: match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2]! };
}
