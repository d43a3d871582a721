import type { RequestContext } from '../../authz/request-context.js';
import { randomToken, sha256Hex } from '../../secrets/digests.js';
import type { ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import type { EntityRecord } from '../resource/records.js';
import { createEntity } from '../resource/write.js';
import { INITIAL_ACCESS_TOKEN_LIMITS, MINTED, type MintedToken } from './definition.js';

/** `POST /initial-access-tokens` (API.md §8): the realm, and optionally how many registrations and how long. */
export interface InitialAccessTokenRequest {
    realmId?: string;
    expiresIn?: number;
    count?: number;
}

/**
 * Creates an initial access token through the resource engine (the caller needs
 * initial_access_token_create in the token's realm) and answers its record with `token`, the
 * bearer value, shown this once: only its SHA-256 digest is stored (RFC 7591 §3: the server
 * recognises it; nobody reading the database can replay it).
 */
export async function createInitialAccessToken(
    deps: ResourceDeps,
    definition: ResourceDefinition,
    ctx: RequestContext,
    request: InitialAccessTokenRequest,
    now: Date = new Date(),
): Promise<EntityRecord & { token: string }> {
    const token = randomToken();
    const minted: MintedToken = {
        digest: sha256Hex(token),
        count: request.count ?? INITIAL_ACCESS_TOKEN_LIMITS.count.default,
        expiresAt: new Date(now.getTime() + (request.expiresIn ?? INITIAL_ACCESS_TOKEN_LIMITS.expiresIn.default) * 1000),
    };
    const body = { ...(request.realmId !== undefined ? { realmId: request.realmId } : {}), [MINTED]: minted };
    const record = await createEntity(deps, definition, ctx, body);
    return { ...record, token };
}
