/**
 * RFC 8707 §2: a resource indicator is an absolute URI without a fragment — the value a resource
 * server registers as its client's `audience` and a client sends as `resource`.
 */
export function isResourceIndicator(value: string): boolean {
    if (/\s|#/.test(value)) return false;
    try {
        return new URL(value).protocol.length > 1;
    } catch {
        return false;
    }
}
