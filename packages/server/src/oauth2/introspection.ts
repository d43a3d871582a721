import { WITHHELD_POLICY_TYPE, type AuthorizationCatalog, type AuthorizationGrant } from '@realmgate/access';
import type { Kysely } from 'kysely';
import type { CatalogCache } from '../authz/catalog-cache.js';
import { loadGrants } from '../authz/grants.js';
import type { Database } from '../db/schema.js';
import type { ActClaim, SubjectKind } from '../tokens/claims.js';
import type { UserProfile } from '../storage/users.js';
import { claimsOfProfile, userClaims } from '../tokens/user-claims.js';

/** One element of `permissions` (spec "Grant (one element of permissions in an introspection response)"). */
export interface IntrospectedGrant {
    name: string;
    realm_id: string | null;
    client_id: string | null;
    realm_scope: string;
    policies: string[];
}

/** The OpenID claims of a user subject; each is omitted (key absent) when unavailable, never null. */
export interface IntrospectedClaims {
    email?: string;
    nickname?: string;
    preferred_username?: string;
    given_name?: string;
    family_name?: string;
    updated_at?: number;
}

/** Spec "Introspection response" (RFC 7662 §2.2). A bare `{ active: false }` names nothing. */
export interface IntrospectionResponse extends IntrospectedClaims {
    active: boolean;
    permissions?: IntrospectedGrant[];
    sub?: string;
    sub_kind?: SubjectKind;
    realm_id?: string;
    realm_name?: string;
    /** RFC 7662 §2.2, RFC 9068 §2.2: an active token's issuer, audience, client, scope, identifier and times */
    iss?: string;
    /** the token's kind (spec "token kind"): access_token or refresh_token */
    kind?: string;
    aud?: string;
    client_id?: string;
    scope?: string;
    jti?: string;
    iat?: number;
    exp?: number;
    /** RFC 8693 §4.1: an active delegated token's actor */
    act?: ActClaim;
    /** RFC 9449 §6.2: the DPoP key an active bound token is bound to */
    cnf?: { jkt: string };
}

/** The subject an introspection names: the token's, or the Basic caller's own. */
export interface IntrospectedSubject {
    id: string;
    kind: SubjectKind;
    realmId: string;
    realmName: string;
}

export interface IntrospectionDeps {
    db: Kysely<Database>;
    catalog: CatalogCache;
}

/** RFC 7662 §2.2: the answer for a token that is not active and names no subject. */
export const INACTIVE: IntrospectionResponse = Object.freeze({ active: false });

/**
 * Spec grant rule 3: a grant is listed only when the catalog carries every junction tree it names —
 * a tree the server could not project travels as the withheld node, and an absent tree is not
 * carried either, so a consumer never receives a grant it could not evaluate.
 */
function carried(catalog: AuthorizationCatalog, grant: AuthorizationGrant): boolean {
    return grant.policies.every((id) => {
        const tree = Object.hasOwn(catalog.policies, id) ? catalog.policies[id] : undefined;
        return tree !== undefined && tree.type !== WITHHELD_POLICY_TYPE;
    });
}

/**
 * The grant list (spec grant rules 1–4): one entry per junction row; for a client-issued token only
 * what applies through that client (rule 2, spec Authentication rule 8); never narrowed by scope (rule 4).
 */
async function grantList(deps: IntrospectionDeps, subject: IntrospectedSubject, narrowToClientId: string | null): Promise<IntrospectedGrant[]> {
    const identity = {
        id: subject.id, type: subject.kind, realmId: subject.realmId, realmName: subject.realmName,
        clientId: subject.kind === 'client' ? subject.id : null,
    };
    const [catalog, grants] = await Promise.all([deps.catalog.get(), loadGrants(deps.db, identity, { narrowToClientId }, deps.catalog.grants)]);
    // a remembered grant list (authz/grants.ts hands the same frozen list while its entry lives) is
    // listed and serialized once per catalog
    const known = LISTED.get(grants);
    if (known?.catalog === catalog) return known.list;
    const list = grants.filter((grant) => carried(catalog, grant)).map((grant) => ({
        name: grant.name,
        realm_id: grant.realm_id,
        client_id: grant.client_id,
        // spec Grant table: the grant's own reach, own when absent
        realm_scope: grant.realm_scope ?? 'own',
        policies: [...grant.policies],
    }));
    if (Object.isFrozen(grants)) {
        LISTED.set(grants, { catalog, list });
        PERMISSIONS_JSON.set(list, JSON.stringify(list));
    }
    return list;
}

const LISTED = new WeakMap<readonly AuthorizationGrant[], { catalog: AuthorizationCatalog; list: IntrospectedGrant[] }>();
/** the JSON of a remembered grant list, written once: an answer carrying 50 grants is mostly this text */
const PERMISSIONS_JSON = new WeakMap<IntrospectedGrant[], string>();

/**
 * The introspection response as JSON, the same text `JSON.stringify(answer)` writes: a remembered
 * grant list goes in as the text written when it was first listed.
 */
export function introspectionJson(answer: IntrospectionResponse): string {
    const { active, permissions, ...named } = answer;
    const listed = permissions && PERMISSIONS_JSON.get(permissions);
    if (listed === undefined) return JSON.stringify(answer);
    const rest = JSON.stringify(named);
    return `{"active":${JSON.stringify(active)},"permissions":${listed}${rest === '{}' ? '}' : `,${rest.slice(1)}`}`;
}

/** OpenID claims of a user subject (spec Introspection response); a client subject has none. */
async function openIdClaims(db: Kysely<Database>, subject: IntrospectedSubject, profile?: UserProfile): Promise<IntrospectedClaims> {
    if (subject.kind !== 'user') return {};
    // read with the token's state when it was (no second round trip)
    const claims = profile ? claimsOfProfile(profile) : await userClaims(db, subject.id);
    if (!claims) return {};
    // the spec's Introspection response names its OpenID claims: `name` (an ID token and UserInfo claim) is not one
    const { name: _name, ...named } = claims.profile;
    return { ...named, ...(claims.email.email ? { email: claims.email.email } : {}) };
}

/**
 * The introspection response naming `subject`. An active one carries the grant list and the
 * OpenID claims; an inactive one names its subject with `permissions: []` — the spec's "reports no
 * grants" as an empty list, so a consumer that fails closed on a missing list still sees the shape.
 */
export async function introspectionOf(
    deps: IntrospectionDeps,
    subject: IntrospectedSubject,
    options: { active: boolean; narrowToClientId: string | null; profile?: UserProfile | undefined; narrowing?: Pick<IntrospectionResponse, 'iss' | 'kind' | 'aud' | 'client_id' | 'scope' | 'jti' | 'iat' | 'exp' | 'act'>; confirmation?: { jkt: string } | undefined },
): Promise<IntrospectionResponse> {
    const named = { sub: subject.id, sub_kind: subject.kind, realm_id: subject.realmId, realm_name: subject.realmName };
    if (!options.active) return { active: false, permissions: [], ...named };
    const [permissions, claims] = await Promise.all([
        grantList(deps, subject, options.narrowToClientId),
        openIdClaims(deps.db, subject, options.profile),
    ]);
    const cnf = options.confirmation ? { cnf: { jkt: options.confirmation.jkt } } : {};
    return { active: true, permissions, ...named, ...claims, ...options.narrowing, ...cnf };
}
