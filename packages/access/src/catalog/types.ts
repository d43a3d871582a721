import type { DecisionStrategy, RealmScope } from '@realmgate/core';
import type { PolicyNodeInput } from '../policy/types.js';

/** One definition entry of GET /authorization (spec "Authorization catalog"). Wire format: snake_case. */
export interface AuthorizationCatalogPermission {
    name: string;
    realm_id: string | null;
    client_id: string | null;
    decision_strategy: DecisionStrategy;
    /** tree ids; [] = no restriction at that layer; null = the server could not project a tree (denies) */
    policies: string[] | null;
}

/** The identity-free catalog (response of GET /authorization). */
export interface AuthorizationCatalog {
    /** every policy tree a definition or a grant can name, keyed by tree id */
    policies: Record<string, PolicyNodeInput>;
    /** sorted by permission key */
    permissions: AuthorizationCatalogPermission[];
}

/** One element of `permissions` in an introspection response (spec "Grant"). */
export interface AuthorizationGrant {
    name: string;
    realm_id: string | null;
    client_id: string | null;
    /** own when absent */
    realm_scope?: RealmScope;
    /** junction policy tree ids, resolved against the catalog */
    policies: string[];
}

/** One element of the POST /authorization/check answer. */
export interface AuthorizationCheckEntry {
    name: string;
    /** the requested realms the permission reaches, echoed as sent; null stands for global rows */
    realms: (string | null)[];
}
