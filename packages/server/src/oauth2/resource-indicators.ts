import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findResourceServer } from '../storage/resource-servers.js';
import { isResourceIndicator } from '../tokens/resource-indicator.js';
import { oauthError } from './errors.js';

const invalidTarget = (description: string) => oauthError(ErrorCode.INVALID_TARGET, description);

/**
 * The resource server a request names (RFC 8707 §2): an absolute URI without a fragment that an
 * active client of the realm registered as its `audience`; anything else is `invalid_target`.
 */
export async function registeredResource(db: Kysely<Database>, realmId: string, resource: string): Promise<string> {
    if (!isResourceIndicator(resource)) throw invalidTarget('The resource must be an absolute URI without a fragment (RFC 8707 §2).');
    const server = await findResourceServer(db, realmId, resource);
    if (!server?.active) throw invalidTarget('The resource names no resource server of the realm.');
    return resource;
}

/**
 * The audience of an access token a token request issues (RFC 8707 §2.2): `requested` narrows it
 * to one resource server of the realm; `allowed` is the resource the grant was narrowed to before
 * (an authorization request's, a refresh token's, a subject token's audience), which a request may
 * repeat but never leave. Nothing requested keeps what the grant allowed; null: the token names no
 * audience and is good at any resource server of the realm, as before resource indicators.
 */
export async function narrowedAudience(db: Kysely<Database>, realmId: string, requested: string | undefined, allowed: string | null): Promise<string | null> {
    if (requested === undefined) return allowed;
    if (allowed !== null && requested !== allowed) throw invalidTarget('The resource is not one the grant allowed.');
    return registeredResource(db, realmId, requested);
}

/**
 * The resource server an access token was narrowed to (RFC 8707 §2), from its `aud`: none when it
 * carries the realm's default audience (RFC 9068 §2.2: what a token narrowed to nothing names) or
 * no `aud` at all (a token signed before access tokens always named one).
 */
export function narrowedResourceOf(aud: string | undefined, defaultAudience: string): string | null {
    return aud === undefined || aud === defaultAudience ? null : aud;
}
