import {
    defaultPolicyEngine,
    policyNeedsIdentity,
    type AuthorizationCatalog,
    type PolicyIdentity,
} from '@realmgate/access';
import { PermissionName, isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { RequestContext } from './request-context.js';
import { forbidden, issue, notFound, validationFailed, type Issue } from '../errors/app-error.js';
import type { Actor } from '../authn/actor.js';
import { createRequestAuthorizer, type AuthorizerDeps, type RequestAuthorizer } from './authorizer.js';
import { loadPolicyTree } from './policy-tree.js';
import { findPermissionDefinition } from '../storage/catalog.js';
import { findSubjectWithRealm } from '../storage/subjects.js';

const BODY_KEYS = new Set(['identity', 'realmId']);

/** The subject named in a check body (spec "identity" request member): never a name. */
export interface SubjectRef {
    type: 'user' | 'client';
    id: string;
}

export interface SubjectCheckRequest {
    /** undefined: the caller; null: no identity */
    identity: SubjectRef | null | undefined;
    /** the resource realm the check is about; undefined: the subject's own realm */
    realmId: string | null | undefined;
}

/**
 * The result of POST /permissions/:id/check and POST /policies/:id/check. `error`: the permission
 * (or policy) needs an identity and the check ran without one (spec Errors table).
 */
export interface SubjectCheckResult {
    status: 'allow' | 'deny' | 'error';
    message?: string;
}

function readIdentity(value: unknown, issues: Issue[]): SubjectRef | null | undefined {
    if (value === undefined || value === null) return value;
    if (typeof value !== 'object' || Array.isArray(value)) {
        issues.push(issue(['identity'], 'invalid_type', "must be { type: 'user' | 'client', id: UUID } or null"));
        return undefined;
    }
    const { type, id, ...rest } = value as Record<string, unknown>;
    for (const key of Object.keys(rest)) issues.push(issue(['identity', key], 'unknown_member', 'is not a known member'));
    if (type !== 'user' && type !== 'client') issues.push(issue(['identity', 'type'], 'invalid_value', "must be 'user' or 'client'"));
    // names repeat across realms, so only the id identifies a subject (spec "identity" member)
    if (typeof id !== 'string' || !isUuid(id)) issues.push(issue(['identity', 'id'], 'invalid_format', 'must be a UUID'));
    return { type: type as SubjectRef['type'], id: typeof id === 'string' ? id.toLowerCase() : '' };
}

/** 400 with every finding for a malformed body or identity (spec check-route rule 4). */
export function parseSubjectCheckBody(body: unknown): SubjectCheckRequest {
    if (body === undefined || body === null || body === '') return { identity: undefined, realmId: undefined };
    if (typeof body !== 'object' || Array.isArray(body)) {
        throw validationFailed([issue([], 'invalid_type', 'must be an object { identity?, realmId? }')]);
    }
    const input = body as Record<string, unknown>;
    const issues: Issue[] = [];
    for (const key of Object.keys(input)) {
        if (!BODY_KEYS.has(key)) issues.push(issue([key], 'unknown_member', 'is not a known member'));
    }
    const identity = readIdentity(input.identity, issues);
    const { realmId } = input;
    if (realmId !== undefined && realmId !== null && (typeof realmId !== 'string' || realmId.length === 0 || realmId.length > 255)) {
        issues.push(issue(['realmId'], 'invalid_type', 'must be a realm id or name, or null for global rows'));
    }
    if (issues.length > 0) throw validationFailed(issues);
    return { identity, realmId: realmId as string | null | undefined };
}

async function storedIdentity(db: Kysely<Database>, ref: SubjectRef): Promise<PolicyIdentity | null> {
    const stored = await findSubjectWithRealm(db, ref.type, ref.id);
    if (!stored) return null;
    return { id: stored.id, type: ref.type, realmId: stored.realmId, realmName: stored.realmName, clientId: ref.type === 'client' ? stored.id : null };
}

/** Who the check is about, with the authorizer it is evaluated by. */
interface Subject {
    actor: Actor;
    authorizer: () => Promise<RequestAuthorizer>;
}

/**
 * Spec check-route rules 1–4. Absent: the caller as authenticated (client narrowing and a bearer
 * without scope `global` included). null: nobody. Another subject: permission_check whose reach
 * admits the realm the subject is stored in — never a realm from the body. An unknown subject is
 * 404 only for a caller holding permission_check at all, so the route is no existence oracle.
 */
export async function resolveSubject(deps: AuthorizerDeps, ctx: RequestContext, ref: SubjectRef | null | undefined): Promise<Subject> {
    if (ref === undefined) return { actor: ctx.actor, authorizer: ctx.authorizer };
    if (ref === null) {
        const actor: Actor = { identity: null, tokenClientId: null, method: 'none' };
        return { actor, authorizer: () => createRequestAuthorizer(deps, actor) };
    }
    const caller = ctx.actor;
    const self = caller.identity !== null && caller.identity.type === ref.type && caller.identity.id.toLowerCase() === ref.id;
    const identity = await storedIdentity(deps.db, ref);
    if (!self || caller.identityWithheld) {
        const gate = await ctx.authorizer();
        if (!identity) {
            if (gate.evaluator.preAllows({ name: PermissionName.PERMISSION_CHECK })) throw notFound('identity');
            throw forbidden();
        }
        await gate.assert(PermissionName.PERMISSION_CHECK, { realmMatch: identity.realmId });
    }
    if (!identity) throw notFound('identity');
    // the caller checking itself keeps its token's client narrowing (spec Authentication rule 8)
    const actor: Actor = { identity, tokenClientId: self ? caller.tokenClientId : null, method: 'none' };
    return { actor, authorizer: () => createRequestAuthorizer(deps, actor) };
}

function resourceRealm(request: SubjectCheckRequest, subject: Actor): string | null {
    return request.realmId !== undefined ? request.realmId : (subject.identity?.realmId ?? null);
}

function evaluatesWithoutIdentity(subject: Actor): boolean {
    return subject.identity === null || subject.identityWithheld === true;
}

const IDENTITY_NEEDED: SubjectCheckResult = { status: 'error', message: 'The permission needs an identity, and the check ran without one.' };

/**
 * POST /permissions/:id/check: the definition is evaluated as itself (rule 5: its own realm and
 * client), with the pre-gate semantics of the batch check — a junction policy that needs the row
 * passes and is decided per row on the server.
 */
export async function checkPermission(deps: AuthorizerDeps, permissionId: string, subject: Subject, request: SubjectCheckRequest): Promise<SubjectCheckResult> {
    const row = isUuid(permissionId) ?
        await findPermissionDefinition(deps.db, permissionId.toLowerCase()) :
        undefined;
    if (!row) throw notFound('permission');
    let authorizer = await subject.authorizer();
    let definition = findDefinition(authorizer.catalog, row);
    if (!definition) {
        // written since the cached catalog was built (possibly on another replica): rebuild once
        deps.catalog.invalidateLocally();
        authorizer = await createRequestAuthorizer(deps, subject.actor);
        definition = findDefinition(authorizer.catalog, row);
    }
    if (!definition || definition.policies === null) return { status: 'deny' };
    const allowed = authorizer.evaluator.preAllows({
        name: row.name, realmId: row.realmId, clientId: row.clientId, data: { realmMatch: resourceRealm(request, subject.actor) },
    });
    if (allowed) return { status: 'allow' };
    if (evaluatesWithoutIdentity(subject.actor) && definition.policies.some((id) => isIdentityBound(authorizer.catalog, id))) {
        return IDENTITY_NEEDED;
    }
    return { status: 'deny' };
}

function findDefinition(catalog: AuthorizationCatalog, row: { name: string; realmId: string | null; clientId: string | null }) {
    return catalog.permissions.find((entry) => entry.name === row.name && entry.realm_id === row.realmId && entry.client_id === row.clientId);
}

function isIdentityBound(catalog: AuthorizationCatalog, id: string): boolean {
    try {
        return policyNeedsIdentity(catalog.policies[id]);
    } catch {
        return false;
    }
}

/**
 * POST /policies/:id/check: the policy tree alone, outside any definition, for the subject — so a
 * permission-binding node has no grant to hold and fails. A tree this server cannot project denies.
 */
export async function checkPolicy(deps: AuthorizerDeps, policyId: string, subject: Subject, request: SubjectCheckRequest): Promise<SubjectCheckResult> {
    const { found, tree } = isUuid(policyId) ? await loadPolicyTree(deps.db, policyId.toLowerCase()) : { found: false, tree: null };
    if (!found) throw notFound('policy');
    if (tree === null) return { status: 'deny' };
    const identity = evaluatesWithoutIdentity(subject.actor) ? null : subject.actor.identity;
    const outcome = defaultPolicyEngine.evaluate(tree, { realmMatch: resourceRealm(request, subject.actor) }, { identity, pre: true });
    if (outcome === 'pass') return { status: 'allow' };
    if (identity === null && policyNeedsIdentity(tree)) return IDENTITY_NEEDED;
    return { status: 'deny' };
}
