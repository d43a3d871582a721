import {
    WITHHELD_POLICY_TYPE,
    deniesWithoutGrant,
    getNextPolicyChange,
    secondsUntilNextPolicyChange,
    type AuthorizationCatalog,
    type AuthorizationCatalogPermission,
    type AuthorizationCheckEntry,
    type AuthorizationGrant,
    type PolicyIdentity,
} from '@realmgate/access';
import { issue, validationFailed, type Issue } from '../errors/app-error.js';
import type { RequestAuthorizer } from './authorizer.js';
import { permissionKey } from './catalog.js';

/** Spec "Limits": per POST /authorization/check. */
const MAX_CHECK_NAMES = 256;
const MAX_CHECK_REALMS = 4;
/** the column width of a permission name; a longer string cannot name one */
const MAX_NAME_LENGTH = 255;

export type RealmSelector = 'own' | 'ownOrNull' | (string | null)[];

export interface BatchCheckRequest {
    /** null: every definition */
    names: string[] | null;
    realms: RealmSelector;
}

export interface BatchCheckAnswer {
    entries: AuthorizationCheckEntry[];
    /** seconds until a date or time policy could change a verdict for the caller; null: none can */
    maxAge: number | null;
}

const BODY_KEYS = new Set(['names', 'realms']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readNames(value: unknown, issues: Issue[]): string[] | null {
    if (value === undefined) return null;
    if (!Array.isArray(value)) {
        issues.push(issue(['names'], 'invalid_type', 'must be a list of permission names'));
        return null;
    }
    if (value.length > MAX_CHECK_NAMES) {
        issues.push(issue(['names'], 'invalid_maxItems', `must not have more than ${MAX_CHECK_NAMES} items`));
        return null;
    }
    value.forEach((name: unknown, index) => {
        if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH) {
            issues.push(issue(['names', index], 'invalid_type', `must be a permission name (1–${MAX_NAME_LENGTH} characters)`));
        }
    });
    return value as string[];
}

function readRealms(value: unknown, issues: Issue[]): RealmSelector {
    if (value === undefined || value === 'ownOrNull') return 'ownOrNull';
    if (value === 'own') return 'own';
    if (!Array.isArray(value)) {
        // spec batch-check rule 5: there is no selector `any`; the caller names the realms it needs
        issues.push(issue(['realms'], 'invalid_value', "must be 'own', 'ownOrNull' or a list of realms (null for global rows)"));
        return 'ownOrNull';
    }
    if (value.length > MAX_CHECK_REALMS) {
        issues.push(issue(['realms'], 'invalid_maxItems', `must not have more than ${MAX_CHECK_REALMS} items`));
        return 'ownOrNull';
    }
    value.forEach((realm: unknown, index) => {
        if (realm !== null && (typeof realm !== 'string' || realm.length === 0 || realm.length > MAX_NAME_LENGTH)) {
            issues.push(issue(['realms', index], 'invalid_type', 'must be a realm id or name, or null for global rows'));
        }
    });
    return value as (string | null)[];
}

/** The request body (spec "Batch check request and answer"); 400 with every finding otherwise. */
export function parseBatchCheckBody(body: unknown): BatchCheckRequest {
    if (body === undefined || body === null || body === '') return { names: null, realms: 'ownOrNull' };
    if (!isPlainObject(body)) throw validationFailed([issue([], 'invalid_type', 'must be an object { names?, realms? }')]);
    const issues: Issue[] = [];
    for (const key of Object.keys(body)) {
        if (!BODY_KEYS.has(key)) issues.push(issue([key], 'unknown_member', 'is not a known member'));
    }
    const names = readNames(body.names, issues);
    const realms = readRealms(body.realms, issues);
    if (issues.length > 0) throw validationFailed(issues);
    return { names, realms };
}

/**
 * The realms to evaluate, in answer order. A symbolic selector resolves against the caller's own
 * identity (rule 3): its realm id, plus null for ownOrNull. A caller without a realm has none of its
 * own, so ownOrNull leaves the global rows. An explicit list is not resolved (rule 4): it is echoed
 * as sent, duplicates dropped keeping the first occurrence.
 */
function requestedRealms(selector: RealmSelector, identity: PolicyIdentity | null): (string | null)[] {
    if (selector === 'own' || selector === 'ownOrNull') {
        const own = identity?.realmId ? [identity.realmId] : [];
        return selector === 'own' ? own : [...own, null];
    }
    return [...new Set(selector)];
}

const definitionsByName = new WeakMap<AuthorizationCatalog, Map<string, AuthorizationCatalogPermission[]>>();

/** Every definition of a name (global, realm- and client-owned ones), indexed once per catalog object. */
function definitionIndex(catalog: AuthorizationCatalog): Map<string, AuthorizationCatalogPermission[]> {
    let index = definitionsByName.get(catalog);
    if (!index) {
        index = new Map();
        for (const definition of catalog.permissions) {
            const list = index.get(definition.name);
            if (list) list.push(definition);
            else index.set(definition.name, [definition]);
        }
        definitionsByName.set(catalog, index);
    }
    return index;
}

function namesToCheck(catalog: AuthorizationCatalog, names: string[] | null): string[] {
    if (names === null) return [...definitionIndex(catalog).keys()];
    return [...new Set(names)];
}

interface Evaluated {
    definition: AuthorizationCatalogPermission;
    allowed: boolean;
}

/**
 * POST /authorization/check (spec rules 1–9): for each name, the requested realms in which at
 * least one of its definitions passes, each definition evaluated as itself. The resource realm is
 * always supplied (so reach never neutral-passes and a realm the caller did not ask about never
 * counts, rules 6 and 7) and the pre-gate semantics apply: a junction policy that needs the row
 * passes here and is decided per row on the server (rule 9). A name reaching no realm is absent.
 */
export function runBatchCheck(authorizer: RequestAuthorizer, request: BatchCheckRequest, now = Date.now()): BatchCheckAnswer {
    const { catalog, evaluator } = authorizer;
    const realms = requestedRealms(request.realms, authorizer.actor.identity);
    const index = definitionIndex(catalog);
    const entries: AuthorizationCheckEntry[] = [];
    const evaluated: Evaluated[] = [];
    for (const name of namesToCheck(catalog, request.names)) {
        const definitions = index.get(name);
        if (!definitions) continue;
        const reached = new Set<string | null>();
        for (const definition of definitions) {
            let allowed = false;
            for (const realm of realms) {
                if (definition.policies === null) break;
                if (evaluator.preAllows({
                    name, realmId: definition.realm_id, clientId: definition.client_id, data: { realmMatch: realm },
                })) {
                    reached.add(realm);
                    allowed = true;
                }
            }
            evaluated.push({ definition, allowed });
        }
        if (reached.size > 0) entries.push({ name, realms: realms.filter((realm) => reached.has(realm)) });
    }
    return { entries, maxAge: maxAgeOf(catalog, authorizer.grants ?? [], evaluated, now) };
}

function isCarried(catalog: AuthorizationCatalog, id: string): boolean {
    const node = catalog.policies[id];
    return node !== undefined && node.type !== WITHHELD_POLICY_TYPE;
}

/**
 * Spec rule 8: the seconds until the earliest instant a date or time node could change a verdict
 * for this caller, over the definition trees of every evaluated definition and the junction trees
 * of the caller's grants of it. A denied definition the caller holds no grant of is left out when
 * its policies deny every grant-less caller anyway, so the window of a permission the caller
 * cannot hold is never disclosed.
 */
function maxAgeOf(catalog: AuthorizationCatalog, grants: readonly AuthorizationGrant[], evaluated: Evaluated[], now: number): number | null {
    const junctions = new Map<string, string[]>();
    for (const grant of grants) {
        const key = permissionKey(grant.name, grant.realm_id, grant.client_id);
        junctions.set(key, [...(junctions.get(key) ?? []), ...grant.policies]);
    }
    const timed = new Map<string, boolean>();
    const isTimed = (id: string): boolean => {
        let value = timed.get(id);
        if (value === undefined) {
            value = getNextPolicyChange(catalog.policies[id], now) !== null;
            timed.set(id, value);
        }
        return value;
    };
    const counted = new Set<string>();
    for (const { definition, allowed } of evaluated) {
        if (definition.policies === null) continue;
        const held = junctions.get(permissionKey(definition.name, definition.realm_id, definition.client_id));
        const trees = [...definition.policies, ...(held ?? [])].filter((id) => isCarried(catalog, id));
        if (!trees.some(isTimed)) continue;
        const hidden = !allowed && held === undefined &&
            deniesWithoutGrant(definition.policies.map((id) => catalog.policies[id]), definition.decision_strategy);
        if (hidden) continue;
        for (const id of trees) if (isTimed(id)) counted.add(id);
    }
    if (counted.size === 0) return null;
    return secondsUntilNextPolicyChange([...counted].map((id) => catalog.policies[id]), now);
}
