/**
 * The access token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1: the scheme is
 * case-insensitive, one token of non-space characters); null for any other header.
 */
export function bearerTokenOf(header: string | undefined): string | null {
    if (header === undefined) return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1]! : null;
}
