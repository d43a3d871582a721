import { createHash, randomUUID } from 'node:crypto';
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

/**
 * How many narrowed answers one catalog keeps, and how many bytes they may hold together: a
 * catalog of 1,000 definitions serializes to a few hundred kB, so the count alone would let a few
 * hundred distinct reaches hold tens of MB (every cache has a size bound).
 */
const MAX_BODIES_PER_CATALOG = 64;
const MAX_BODY_BYTES_PER_CATALOG = 16 * 1024 * 1024;

/** One serialized answer and its strong validator. */
export interface CatalogBody {
    /** UTF-8 JSON, encoded once: a request writes it as is */
    body: Buffer;
    /**
     * `"…"` (RFC 9110 §8.8.3): a digest of the body, hence of the catalog's content (the version:
     * every definition change changes it) and of the caller's reach (the realms it narrows to).
     * Content-derived, so every replica that holds the same definitions hands out the same tag.
     */
    etag: string;
}

interface CatalogBodies {
    realms: (string | null)[];
    full?: CatalogBody;
    /** narrowed answers by the set of reached realms (oldest first); null: that reach covers no definition */
    byReach: Map<string, CatalogBody | null>;
    /** bytes held by byReach */
    bytes: number;
}

/**
 * Serialized answers per catalog object. A narrowed answer depends only on which of the catalog's
 * realms the caller reaches, so callers with the same reach share one body; a rebuilt catalog is
 * a new object and starts afresh (CatalogCache keeps the object of an unchanged rebuild, so the
 * bodies survive a rebuild that found nothing new). The WeakMap lets an outdated catalog's bodies
 * go with it.
 */
const bodies = new WeakMap<AuthorizationCatalog, CatalogBodies>();

function bodiesOf(catalog: AuthorizationCatalog): CatalogBodies {
    let cached = bodies.get(catalog);
    if (!cached) {
        cached = { realms: realmsOf(catalog), byReach: new Map(), bytes: 0 };
        bodies.set(catalog, cached);
    }
    return cached;
}

function serialized(value: AuthorizationCatalog): CatalogBody {
    const body = Buffer.from(JSON.stringify(value), 'utf8');
    return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}

/** Keep a narrowed answer, evicting the oldest ones past either bound. */
function remember(cached: CatalogBodies, signature: string, answer: CatalogBody | null): void {
    const size = answer?.body.length ?? 0;
    for (const [key, old] of cached.byReach) {
        if (cached.byReach.size < MAX_BODIES_PER_CATALOG && cached.bytes + size <= MAX_BODY_BYTES_PER_CATALOG) break;
        cached.byReach.delete(key);
        cached.bytes -= old?.body.length ?? 0;
    }
    cached.byReach.set(signature, answer);
    cached.bytes += size;
}

/**
 * The JSON body `GET /authorization` answers for the caller whose request evaluator is given, and
 * its entity tag: the gate, then the narrowing to its reach. Throws 403 for a caller the gate
 * refuses or whose reach covers no definition. Serialized once per catalog version and reach.
 */
export async function catalogBodyForCaller(catalog: AuthorizationCatalog, evaluator: AuthorizationEvaluator): Promise<CatalogBody> {
    await assertCatalogGate(evaluator);
    const reach = reachOf(evaluator);
    const cached = bodiesOf(catalog);
    if (reach.full) return (cached.full ??= serialized(catalog));
    const signature = JSON.stringify(cached.realms.filter(reach.reaches));
    let answer = cached.byReach.get(signature);
    if (answer === undefined) {
        const narrowed = narrowCatalog(catalog, reach.reaches);
        answer = narrowed ? serialized(narrowed) : null;
        remember(cached, signature, answer);
    }
    if (answer === null) throw forbidden('Your permission grants reach no permission definition.');
    return answer;
}
