import { randomUUID } from 'node:crypto';
import {
    BuiltInPolicyType,
    WITHHELD_POLICY_TYPE,
    isPermissionDeniedError,
    type AuthorizationCatalog,
    type AuthorizationCatalogPermission,
    type AuthorizationEvaluator,
    type PolicyNodeInput,
} from '@realmgate/access';
import { PermissionName } from '@realmgate/core';
import { forbidden } from '../errors/app-error.js';
import { treeRealmOf } from './catalog.js';

/** Spec "Authorization routes": the credential must hold one of these to read the catalog. */
const CATALOG_GATE = [PermissionName.PERMISSION_READ, PermissionName.PERMISSION_UPDATE, PermissionName.PERMISSION_DELETE] as const;

/** The node a tree outside the caller's reach travels as (spec catalog rule 3). Frozen: shared by every answer. */
const WITHHELD_NODE: PolicyNodeInput = Object.freeze({ type: WITHHELD_POLICY_TYPE, invert: false });

/** Whether the caller's gate grants reach a realm (null: the global rows). */
export type ReachTest = (realmId: string | null) => boolean;

/**
 * The caller's realm reach, asked of the request's own evaluator (no second copy of the reach
 * rule): a realm is reached when any gate permission is allowed with that realm as REALM_MATCH.
 * Without row attributes, a gate grant restricted per row stays pending and does not reach:
 * narrowing fails closed. `full` is true when a realm nobody belongs to is reached — only an
 * `any` grant (or a gate without a policy layer) does that, and then nothing is withheld.
 */
function reachOf(evaluator: AuthorizationEvaluator): { full: boolean; reaches: ReachTest } {
    const memo = new Map<string | null, boolean>();
    const reaches: ReachTest = (realmId) => {
        let reached = memo.get(realmId);
        if (reached === undefined) {
            const data = { [BuiltInPolicyType.REALM_MATCH]: realmId };
            reached = CATALOG_GATE.some((name) => evaluator.allows({ name, data }));
            memo.set(realmId, reached);
        }
        return reached;
    };
    return { full: reaches(randomUUID()), reaches };
}

/**
 * Spec "Authorization routes" gate: the credential holds PERMISSION_READ, PERMISSION_UPDATE or
 * PERMISSION_DELETE. "Holds" is the pre-gate (consumer rule 8): without REALM_MATCH reach does not
 * settle here; the narrowing below settles it per realm. 403 otherwise.
 */
async function assertCatalogGate(evaluator: AuthorizationEvaluator): Promise<void> {
    try {
        await evaluator.preEvaluateOneOf({ name: [...CATALOG_GATE] });
    } catch (error) {
        if (isPermissionDeniedError(error)) throw forbidden('Reading the authorization catalog needs permission_read, permission_update or permission_delete.');
        throw error;
    }
}

/**
 * Narrow a catalog to a reach (spec catalog rule 3). Narrowing removes policy configuration, never
 * entries: a definition outside reach keeps name, realm_id, client_id and decision_strategy with
 * policies null; a tree outside reach keeps its id and arrives as the withheld node, so a grant
 * naming it is dropped rather than reported stale. Order is kept (sorted by permission key).
 * Returns null when the catalog has definitions and none is within reach (spec Errors: an `own`
 * grant reaching no definition answers 403).
 */
function narrowCatalog(catalog: AuthorizationCatalog, reaches: ReachTest): AuthorizationCatalog | null {
    let reached = 0;
    const permissions = catalog.permissions.map((entry): AuthorizationCatalogPermission => {
        if (reaches(entry.realm_id)) {
            reached++;
            return entry;
        }
        return entry.policies === null ? entry : { ...entry, policies: null };
    });
    if (reached === 0 && permissions.length > 0) return null;
    const policies: Record<string, PolicyNodeInput> = {};
    for (const [id, node] of Object.entries(catalog.policies)) {
        const realmId = treeRealmOf(catalog, id);
        // a tree whose realm this catalog did not record is withheld: fail closed
        policies[id] = realmId !== undefined && reaches(realmId) ? node : WITHHELD_NODE;
    }
    return { policies, permissions };
}

/** Every realm (null: the global rows) a definition or tree of the catalog belongs to. */
function realmsOf(catalog: AuthorizationCatalog): (string | null)[] {
    const realms = new Set<string | null>();
    for (const entry of catalog.permissions) realms.add(entry.realm_id);
    for (const id of Object.keys(catalog.policies)) {
        const realmId = treeRealmOf(catalog, id);
        if (realmId !== undefined) realms.add(realmId);
    }
    return [...realms];
}

const MAX_BODIES_PER_CATALOG = 256;

interface CatalogBodies {
    realms: (string | null)[];
    full?: string;
    /** narrowed answers by the set of reached realms; null: that reach covers no definition */
    byReach: Map<string, string | null>;
}

/**
 * Serialized answers per catalog object. A narrowed answer depends only on which of the catalog's
 * realms the caller reaches, so callers with the same reach share one body; a rebuilt catalog is
 * a new object and starts afresh.
 */
const bodies = new WeakMap<AuthorizationCatalog, CatalogBodies>();

function bodiesOf(catalog: AuthorizationCatalog): CatalogBodies {
    let cached = bodies.get(catalog);
    if (!cached) {
        cached = { realms: realmsOf(catalog), byReach: new Map() };
        bodies.set(catalog, cached);
    }
    return cached;
}

/**
 * The JSON body `GET /authorization` answers for the caller whose request evaluator is given: the
 * gate, then the narrowing to its reach. Throws 403 for a caller the gate refuses or whose reach
 * covers no definition.
 */
export async function catalogBodyForCaller(catalog: AuthorizationCatalog, evaluator: AuthorizationEvaluator): Promise<string> {
    await assertCatalogGate(evaluator);
    const reach = reachOf(evaluator);
    const cached = bodiesOf(catalog);
    if (reach.full) return (cached.full ??= JSON.stringify(catalog));
    const signature = JSON.stringify(cached.realms.filter(reach.reaches));
    let body = cached.byReach.get(signature);
    if (body === undefined) {
        const narrowed = narrowCatalog(catalog, reach.reaches);
        body = narrowed ? JSON.stringify(narrowed) : null;
        if (cached.byReach.size >= MAX_BODIES_PER_CATALOG) cached.byReach.clear();
        cached.byReach.set(signature, body);
    }
    if (body === null) throw forbidden('Your permission grants reach no permission definition.');
    return body;
}
