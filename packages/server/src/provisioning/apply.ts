import type { CatalogCache } from '../authz/catalog-cache.js';
import type { RequestAuthorizer } from '../authz/authorizer.js';
import type { RequestContext } from '../authz/request-context.js';
import { createSystemAuthorizer, systemContext } from '../authz/system-context.js';
import { AppError } from '../errors/app-error.js';
import { keepProvisionedSecretHash, rotateSecret } from '../domains/clients/rotate-secret.js';
import { createSecretStore, modeOfRow, type SecretStore } from '../domains/clients/secret.js';
import { resourceDefinitions, type DomainDeps } from '../domains/registry.js';
import type { ResourceDefinition } from '../domains/resource/context.js';
import { findRow } from '../domains/resource/resolve.js';
import { createEntity, updateEntity } from '../domains/resource/write.js';
import { isBcryptHash } from '../secrets/passwords.js';
import { secretsEqual } from '../secrets/secret-box.js';
import { findBindingId, takeProvisioningLock } from '../storage/provisioning.js';
import type { StoredRow } from '../storage/resource/table.js';
import { writeTransaction, type WriteTx } from '../storage/write-transaction.js';
import { ProvisioningError, type ProvisioningDocument } from './files.js';
import { CONTROL_MEMBERS, type BindingMember } from './schema.js';

/** What a provisioning run needs: the administered resources' deps and the catalog the system authorizer reads. */
export interface ProvisioningDeps extends DomainDeps {
    catalog: CatalogCache;
}

/** What a run did: rows created, rows an entry with strategy merge changed, bindings added. */
export interface ProvisioningSummary {
    files: number;
    created: number;
    updated: number;
    bound: number;
}

type Entry = Record<string, unknown>;

/** Where an entry sits: the file and the JSON pointer inside the document. */
interface Place {
    file: string;
    pointer: string;
}

/** A binding an entry declares: its members, the junction resource and its two REST members. */
interface BindingKind {
    global: BindingMember;
    realm: BindingMember;
    target: string;
    junction: string;
    holderMember: string;
    targetMember: string;
}

const binding = (target: string, junction: string, holderMember: string, targetMember: string, plural: string): BindingKind => ({
    global: `global${plural}` as BindingMember, realm: `realm${plural}` as BindingMember, target, junction, holderMember, targetMember,
});

/** The bindings each holder declares (the junction resources of API.md §3). */
const BINDINGS: Readonly<Record<string, readonly BindingKind[]>> = {
    permission: [binding('policy', 'permission_policy', 'permissionId', 'policyId', 'Policies')],
    role: [binding('permission', 'role_permission', 'roleId', 'permissionId', 'Permissions')],
    user: [binding('role', 'user_role', 'userId', 'roleId', 'Roles'), binding('permission', 'user_permission', 'userId', 'permissionId', 'Permissions')],
    client: [
        binding('role', 'client_role', 'clientId', 'roleId', 'Roles'),
        binding('permission', 'client_permission', 'clientId', 'permissionId', 'Permissions'),
        binding('scope', 'client_scope', 'clientId', 'scopeId', 'Scopes'),
    ],
};

/** Members an entry may carry that are neither attributes nor control members (spec: stripped silently). */
const STRIPPED = new Set(['scope', 'rootUrl']);

/** The attributes of an entry: what its create body (or, merged, its update body) carries. */
function attributesOf(entry: Entry): Entry {
    return Object.fromEntries(Object.entries(entry).filter(([name]) => !CONTROL_MEMBERS.has(name) && !STRIPPED.has(name)));
}

/** A boolean column as read through the engine's untyped row (1/0 on SQLite and MySQL). */
function storedTrue(value: unknown): boolean {
    return value === true || value === 1 || value === '1';
}

function entries(container: Entry, member: string): Entry[] {
    const value = container[member];
    return Array.isArray(value) ? value.filter((item): item is Entry => typeof item === 'object' && item !== null) : [];
}

function names(entry: Entry, member: string): string[] {
    const value = entry[member];
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A refusal of a domain service, placed in the file: the issue's member path follows the entry's pointer. */
function located(error: unknown, place: Place): unknown {
    if (!(error instanceof AppError)) return error;
    const first = error.issues?.[0];
    if (first) return new ProvisioningError(place.file, `${place.pointer}/${first.path.join('/')}`, first.message);
    return new ProvisioningError(place.file, place.pointer, error.message);
}

class Run {
    readonly summary: ProvisioningSummary = { files: 0, created: 0, updated: 0, bound: 0 };

    private readonly store: SecretStore;

    constructor(
        private readonly deps: ProvisioningDeps & { db: WriteTx },
        private readonly definitions: ReadonlyMap<string, ResourceDefinition>,
        private readonly authorizer: RequestAuthorizer,
    ) {
        this.store = createSecretStore(deps);
    }

    private definition(entity: string): ResourceDefinition {
        const found = this.definitions.get(entity);
        if (!found) throw new Error(`provisioning: no resource ${entity}`);
        return found;
    }

    async document(document: ProvisioningDocument): Promise<void> {
        this.summary.files += 1;
        await this.definitionsOf(document.content, null, { file: document.name, pointer: '' });
        for (const [index, realm] of entries(document.content, 'realms').entries()) {
            await this.realm(realm, { file: document.name, pointer: `/realms/${index}` });
        }
    }

    private async realm(entry: Entry, place: Place): Promise<void> {
        const { id: realmId, created, bind } = await this.entry('realm', entry, null, place);
        await this.definitionsOf(entry, realmId, place);
        // after the realm's roles exist, before its users are created: they receive the list
        if (bind && Array.isArray(entry.defaultRoles)) await this.defaultRoles(realmId, entry, created, { ...place, pointer: `${place.pointer}/defaultRoles` });
        for (const member of ['users', 'clients'] as const) {
            for (const [index, child] of entries(entry, member).entries()) {
                await this.entity(member === 'users' ? 'user' : 'client', child, realmId, { ...place, pointer: `${place.pointer}/${member}/${index}` });
            }
        }
    }

    /** Scopes, policies, permissions (bound to policies), then roles (granted permissions), of a realm or global. */
    private async definitionsOf(container: Entry, realmId: string | null, place: Place): Promise<void> {
        for (const [member, entity] of [['scopes', 'scope'], ['policies', 'policy'], ['permissions', 'permission'], ['roles', 'role']] as const) {
            for (const [index, entry] of entries(container, member).entries()) {
                await this.entity(entity, entry, realmId, { ...place, pointer: `${place.pointer}/${member}/${index}` });
            }
        }
    }

    /**
     * One entry: created when no row of that name exists in the realm (then its bindings are
     * applied); an existing row is left alone under createOnly, or gets the declared attributes and
     * missing bindings under merge (spec Versioning "provisioning createOnly"). A built-in row is the
     * exception: it always exists already (bootstrap made it), so its declared bindings are added.
     */
    private async entity(entity: string, entry: Entry, realmId: string | null, place: Place): Promise<string> {
        return (await this.entry(entity, entry, realmId, place)).id;
    }

    /** `entity`, telling also whether the entry created the row and whether its bindings applied. */
    private async entry(entity: string, entry: Entry, realmId: string | null, place: Place): Promise<{ id: string; created: boolean; bind: boolean }> {
        const definition = this.definition(entity);
        const ctx = systemContext(this.authorizer, realmId, place.file);
        // stored in Normalization Form C (name-text.ts): looked up in that form, or a second run would create it again
        const name = String(entry.name).normalize('NFC');
        let id: string;
        let bind: boolean;
        let created = false;
        try {
            const existing = await findRow(this.deps.db, definition.spec, ctx, name);
            if (!existing) {
                id = await this.create(definition, ctx, entry);
                bind = true;
                created = true;
            } else {
                id = existing.id;
                const merge = entry.strategy === 'merge';
                if (merge) await this.merge(definition, ctx, existing, entry);
                bind = merge || storedTrue(existing.built_in);
            }
        } catch (error) {
            throw located(error, place);
        }
        if (bind) await this.bind(entity, id, realmId, entry, place);
        return { id, created, bind };
    }

    /**
     * A realm entry's `defaultRoles` (API.md §8 `defaultRoleIds`), names of the realm's own roles: a
     * realm the entry created gets exactly these; an existing one (merge, built in) gets the missing
     * ones added, none removed, as other bindings. Written through the realms' update, so its rules
     * (roles of the realm only) and its event apply; each role added counts as a binding.
     */
    private async defaultRoles(realmId: string, entry: Entry, replace: boolean, place: Place): Promise<void> {
        const realms = this.definition('realm');
        const ctx = systemContext(this.authorizer, realmId, place.file);
        const roles = this.definition('role');
        const named: string[] = [];
        for (const [index, name] of names(entry, 'defaultRoles').entries()) {
            const row = await findRow(this.deps.db, roles.spec, ctx, name.normalize('NFC'));
            // a global role of that name is no role of the realm: the list holds the realm's own only
            if (!row || row.realm_id !== realmId) throw new ProvisioningError(place.file, `${place.pointer}/${index}`, `names no role "${name}" in this realm`);
            named.push(row.id);
        }
        const current = await findRow(this.deps.db, realms.spec, ctx, realmId);
        const held = Array.isArray(current?.default_role_ids) ? current.default_role_ids.map(String) : [];
        const list = replace ? named : [...new Set([...held, ...named])];
        try {
            await updateEntity(this.deps, realms, ctx, realmId, { defaultRoleIds: list });
        } catch (error) {
            throw located(error, place);
        }
        this.summary.bound += list.filter((id) => !held.includes(id)).length;
    }

    private async create(definition: ResourceDefinition, ctx: RequestContext, entry: Entry): Promise<string> {
        const body = attributesOf(entry);
        // spec beta.65 item 4: a file declaring secretHashed with a bcrypt value keeps it verbatim
        const verbatim = definition.spec.entity === 'client' && body.secretHashed === true && typeof body.secret === 'string' && isBcryptHash(body.secret) ?
            body.secret : undefined;
        if (verbatim !== undefined) delete body.secret;
        const record = await createEntity(this.deps, definition, ctx, body);
        const id = String(record.id);
        if (verbatim !== undefined) await keepProvisionedSecretHash(this.deps, id, verbatim);
        this.summary.created += 1;
        return id;
    }

    private async merge(definition: ResourceDefinition, ctx: RequestContext, existing: StoredRow, entry: Entry): Promise<void> {
        const declared = attributesOf(entry);
        const only = Array.isArray(entry.mergeAttributes) ? new Set(entry.mergeAttributes) : undefined;
        const changes = Object.fromEntries(Object.entries(declared).filter(([name]) => name !== 'name' && (!only || only.has(name))));
        const entity = definition.spec.entity;
        if (entity === 'user' && 'password' in changes && await this.samePassword(existing, changes.password)) delete changes.password;
        let secret: { value: unknown } | undefined;
        if (entity === 'client') {
            // create-time only (spec "Other resource fields"); the update ignores them anyway
            delete changes.secretHashed;
            delete changes.secretEncrypted;
            if ('secret' in changes) secret = { value: changes.secret };
            delete changes.secret;
        }
        if (Object.keys(changes).length > 0) {
            await updateEntity(this.deps, definition, ctx, existing.id, changes);
            const after = await findRow(this.deps.db, definition.spec, ctx, existing.id);
            if (JSON.stringify(after) !== JSON.stringify(existing)) this.summary.updated += 1;
        }
        // after the attributes, so a rotation is counted once and not again as their change
        if (secret) await this.mergeSecret(definition, ctx, existing, secret.value);
    }

    private async samePassword(row: StoredRow, declared: unknown): Promise<boolean> {
        const stored = typeof row.password === 'string' ? row.password : null;
        if (declared === null || stored === null) return declared === stored;
        return typeof declared === 'string' && this.deps.passwords.verify(declared, stored);
    }

    /** A merged secret is written only when it differs; a hashed client's secret is rotated (the API's rule), keeping its mode. */
    private async mergeSecret(definition: ResourceDefinition, ctx: RequestContext, row: StoredRow, declared: unknown): Promise<void> {
        const stored = typeof row.secret === 'string' ? row.secret : null;
        if (typeof declared !== 'string') {
            if (stored !== null) await updateEntity(this.deps, definition, ctx, row.id, { secret: null });
            return;
        }
        const mode = modeOfRow({ secret_hashed: storedTrue(row.secret_hashed), secret_encrypted: storedTrue(row.secret_encrypted) });
        if (mode === 'hashed') {
            if (stored !== null && (secretsEqual(stored, declared) || await this.deps.passwords.verify(declared, stored))) return;
            if (isBcryptHash(declared)) await keepProvisionedSecretHash(this.deps, row.id, declared);
            else await rotateSecret({ ...this.deps, store: this.store }, definition, ctx, row.id, { secret: declared, mode });
            this.summary.updated += 1;
            return;
        }
        const current = mode === 'encrypted' ? await this.store.reveal(this.deps.db, stored) : stored;
        if (current !== null && secretsEqual(current, declared)) return;
        await updateEntity(this.deps, definition, ctx, row.id, { secret: declared });
        this.summary.updated += 1;
    }

    /** The declared bindings of a holder that are missing, by name: `realm…` in its realm, `global…` among global rows. */
    private async bind(entity: string, holderId: string, realmId: string | null, entry: Entry, place: Place): Promise<void> {
        for (const kind of BINDINGS[entity] ?? []) {
            for (const member of [kind.global, kind.realm]) {
                const targetRealm = member === kind.realm ? realmId : null;
                for (const [index, name] of names(entry, member).entries()) {
                    const at: Place = { ...place, pointer: `${place.pointer}/${member}/${index}` };
                    try {
                        await this.bindOne(kind, holderId, targetRealm, name, at);
                    } catch (error) {
                        throw located(error, at);
                    }
                }
            }
        }
    }

    private async bindOne(kind: BindingKind, holderId: string, targetRealm: string | null, name: string, at: Place): Promise<void> {
        const target = this.definition(kind.target);
        const ctx = systemContext(this.authorizer, targetRealm, at.file);
        const row = await findRow(this.deps.db, target.spec, ctx, name);
        if (!row) throw new ProvisioningError(at.file, at.pointer, `names no ${kind.target} "${name}" ${targetRealm === null ? 'among the global ones' : 'in this realm'}`);
        const junction = this.definition(kind.junction);
        const columnOf = (member: string) => junction.fields.find((field) => field.name === member)?.column ?? member;
        const existing = await findBindingId(this.deps.db, junction.spec.table, { [columnOf(kind.holderMember)]: holderId, [columnOf(kind.targetMember)]: row.id });
        if (existing) return;
        await createEntity(this.deps, junction, ctx, { [kind.holderMember]: holderId, [kind.targetMember]: row.id });
        this.summary.bound += 1;
    }
}

/**
 * Applies parsed provisioning documents (files.ts) in one transaction under the provisioning lock:
 * every row through the administered resources' own services (validation, hashing, events), in a
 * system context; any refusal rolls the whole set back and names the file and the place in it.
 */
export async function applyProvisioning(deps: ProvisioningDeps, documents: readonly ProvisioningDocument[]): Promise<ProvisioningSummary> {
    if (documents.length === 0) return { files: 0, created: 0, updated: 0, bound: 0 };
    // loaded before the transaction opens: SQLite's one connection is the transaction's meanwhile
    const authorizer = await createSystemAuthorizer(deps.catalog);
    const definitions = new Map(resourceDefinitions(deps).map((definition) => [definition.spec.entity, definition]));
    return writeTransaction(deps, { preload: async () => undefined, invalidatesCatalog: true }, async (tx) => {
        await takeProvisioningLock(tx);
        const run = new Run({ ...deps, db: tx }, definitions, authorizer);
        for (const document of documents) await run.document(document);
        return run.summary;
    });
}
