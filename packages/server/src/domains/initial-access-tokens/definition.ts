import { toDbDate } from '../../db/values.js';
import { defineResource, type ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { commonFields, readOnlyField, type ResourceSpec } from '../resource/spec.js';

/**
 * Initial access tokens of dynamic client registration (RFC 7591 §1.2, §3; API.md §8): a realm
 * administrator creates one (`POST /initial-access-tokens`, service.ts: the token is answered that
 * once), reads and deletes them here. The token lives only as its digest, which no read returns.
 */
const spec: ResourceSpec<'auth_initial_access_tokens'> = {
    entity: 'initial_access_token',
    collection: 'initial-access-tokens',
    table: 'auth_initial_access_tokens',
    realm: 'required',
    named: false,
    relations: { realm: { column: 'realm_id', resource: 'realm' } },
    fields: [],
};
spec.fields = [
    ...commonFields(spec),
    // the registrations the token authorizes, and those it has left (each registration spends one)
    readOnlyField('count', 'uses_allowed', 'integer'),
    readOnlyField('remaining', 'uses_remaining', 'integer'),
    readOnlyField('expiresAt', 'expires_at', 'date'),
];

/** How a creation is bounded: a token is a bearer credential, so it is short-lived and spent by a few registrations at most. */
export const INITIAL_ACCESS_TOKEN_LIMITS = {
    count: { default: 1, maximum: 100 },
    /** seconds */
    expiresIn: { default: 86_400, minimum: 60, maximum: 30 * 86_400 },
} as const;

/** What the creating service hands the engine beside the body (service.ts): never a body member. */
export interface MintedToken {
    digest: string;
    count: number;
    expiresAt: Date;
}

/** The create input member carrying the minted token: a symbol, so no request body can supply it. */
export const MINTED = Symbol('minted initial access token');

function isMinted(value: unknown): value is MintedToken {
    return typeof value === 'object' && value !== null && 'digest' in value && 'count' in value && 'expiresAt' in value;
}

export function initialAccessTokensDefinition(deps: Pick<ResourceDeps, 'handle'>): ResourceDefinition<'auth_initial_access_tokens'> {
    return defineResource<'auth_initial_access_tokens'>({
        spec,
        fields: spec.fields,
        // created only through service.ts, which answers the token once; never updated
        writes: ['delete'],
        hooks: {
            async prepareCreate(_ctx, input) {
                const minted: unknown = Reflect.get(input, MINTED);
                if (!isMinted(minted)) throw new Error('an initial access token is created by its service only');
                return {
                    token_digest: minted.digest,
                    uses_allowed: minted.count,
                    uses_remaining: minted.count,
                    expires_at: toDbDate(deps.handle.dialect, minted.expiresAt),
                };
            },
        },
    });
}
