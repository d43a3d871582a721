import {
    createAuthorizationEvaluator,
    isAuthorizationCatalogStaleError,
    isPermissionDeniedError,
    type AuthorizationCatalog,
    type AuthorizationCompileResult,
    type AuthorizationEvaluator,
    type AuthorizationGrant,
    type PolicyData,
} from '@realmgate/access';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { forbidden } from '../errors/app-error.js';
import type { Actor } from '../authn/actor.js';
import type { CatalogCache } from './catalog-cache.js';
import { loadGrants } from './grants.js';

/** The per-request face of the access engine: the same evaluator a consumer would build. */
export interface RequestAuthorizer {
    readonly actor: Actor;
    readonly evaluator: AuthorizationEvaluator;
    /** the catalog and grants the evaluator was built from; grants is null when evaluated without identity */
    readonly catalog: AuthorizationCatalog;
    readonly grants: readonly AuthorizationGrant[] | null;
    /** throws 403 unless every name is allowed for this resource data */
    assert(name: string | string[], data?: PolicyData): Promise<void>;
    assertOneOf(names: string[], data?: PolicyData): Promise<void>;
    /** the pre-gate before a row is loaded (pending policies pass) */
    preAssert(name: string | string[], data?: PolicyData): Promise<void>;
    allows(name: string | string[], data?: PolicyData): boolean;
    compile(name: string, realmAttributeName?: string): AuthorizationCompileResult;
}

export interface AuthorizerDeps {
    db: Kysely<Database>;
    catalog: CatalogCache;
}

async function denyAs403(promise: Promise<void>): Promise<void> {
    try {
        await promise;
    } catch (error) {
        if (isPermissionDeniedError(error)) throw forbidden();
        throw error;
    }
}

interface Built {
    evaluator: AuthorizationEvaluator;
    catalog: AuthorizationCatalog;
    grants: AuthorizationGrant[] | null;
}

async function buildEvaluator(deps: AuthorizerDeps, actor: Actor): Promise<Built> {
    const catalog = await deps.catalog.get();
    if (!actor.identity || actor.identityWithheld) return { evaluator: createAuthorizationEvaluator({ catalog }), catalog, grants: null };
    const grants = await loadGrants(deps.db, actor.identity, { narrowToClientId: actor.tokenClientId }, deps.catalog.grants);
    return { evaluator: createAuthorizationEvaluator({ catalog, identity: actor.identity, grants }), catalog, grants };
}

export async function createRequestAuthorizer(deps: AuthorizerDeps, actor: Actor): Promise<RequestAuthorizer> {
    let built: Built;
    try {
        built = await buildEvaluator(deps, actor);
    } catch (error) {
        // spec consumer rule 4, applied to ourselves: a definition written on another replica since
        // the cached catalog was built — refetch once and rebuild
        if (!isAuthorizationCatalogStaleError(error)) throw error;
        deps.catalog.invalidateLocally();
        built = await buildEvaluator(deps, actor);
    }
    const { evaluator } = built;
    const context = (name: string | string[], data?: PolicyData) => (data ? { name, data } : { name });
    return {
        actor,
        evaluator,
        catalog: built.catalog,
        grants: built.grants,
        assert: (name, data) => denyAs403(evaluator.evaluate(context(name, data))),
        assertOneOf: (names, data) => denyAs403(evaluator.evaluateOneOf(context(names, data))),
        preAssert: (name, data) => denyAs403(evaluator.preEvaluate(context(name, data))),
        allows: (name, data) => evaluator.allows(context(name, data)),
        compile: (name, realmAttributeName) => evaluator.compile(realmAttributeName ? { name, realmAttributeName } : { name }),
    };
}
