import { sign, verify, type KeyObject } from 'node:crypto';
import type { SigningAlgorithm } from '../keys/material.js';

/**
 * Compact JWS (RFC 7515 §7.1) with node:crypto: no per-call key import, so signing and verifying
 * stay on the fast path. ES256 signatures are R || S (RFC 7518 §3.4), hence `ieee-p1363`.
 */
export interface DecodedJws {
    header: { alg?: unknown; kid?: unknown; typ?: unknown };
    payload: Record<string, unknown>;
    signingInput: string;
    signature: Buffer;
}

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');
const B64URL = /^[A-Za-z0-9_-]*$/;

function keyOptions(algorithm: SigningAlgorithm, key: KeyObject) {
    return algorithm === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' as const } : key;
}

/** `typ` names the token's media type where a profile asks for one (Back-Channel Logout 1.0 §2.4: `logout+jwt`). */
export function signJws(algorithm: SigningAlgorithm, kid: string, payload: Record<string, unknown>, key: KeyObject, typ = 'JWT'): string {
    const input = `${b64url(JSON.stringify({ alg: algorithm, typ, kid }))}.${b64url(JSON.stringify(payload))}`;
    return `${input}.${sign('sha256', Buffer.from(input), keyOptions(algorithm, key)).toString('base64url')}`;
}

function parseSegment(segment: string): unknown {
    try {
        return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    } catch {
        return undefined;
    }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The parts of a compact JWS, unverified; null when it is not one. */
export function decodeJws(token: string): DecodedJws | null {
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((part) => B64URL.test(part))) return null;
    const header = parseSegment(parts[0]!);
    const payload = parseSegment(parts[1]!);
    if (!isObject(header) || !isObject(payload)) return null;
    return { header, payload, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') };
}

export function verifyJws(algorithm: SigningAlgorithm, key: KeyObject, decoded: DecodedJws): boolean {
    // RFC 8725 §3.1: the algorithm is the key's, never the header's choice
    if (decoded.header.alg !== algorithm) return false;
    try {
        return verify('sha256', Buffer.from(decoded.signingInput), keyOptions(algorithm, key), decoded.signature);
    } catch {
        return false;
    }
}

/**
 * The `realm_id` a token names, unverified: the realm hint of a grant that redeems one of our
 * tokens (refresh, mfa-otp); the key lookup of its verification proves it, as only a key of that
 * realm verifies.
 */
export function unverifiedRealmOf(token: string | undefined): string | undefined {
    const realmId = token ? decodeJws(token)?.payload.realm_id : undefined;
    return typeof realmId === 'string' ? realmId : undefined;
}
