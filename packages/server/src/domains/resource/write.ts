import { randomUUID } from 'node:crypto';
import { badRequest } from '../../errors/app-error.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import { hasRealmColumn } from '../../storage/resource/table.js';
import { toDbDate } from '../../db/values.js';
import type { RequestContext } from '../../authz/request-context.js';
import { recordEvent } from '../events.js';
import { releaseRealmOwnEvents } from '../../storage/events.js';
import { authorizeAction } from './authorize.js';
import type { Input, Tx, ResourceDefinition } from './context.js';
import type { ResourceDeps } from './deps.js';
import { recordOf, writeValue, type EntityRecord, type Row } from './records.js';
import type { Columns } from '../../storage/resource/table.js';
import { nullableTextOf } from './input.js';
import { referencedRealmOfInput } from './referenced.js';
import { deleteRowById, insertRow, selectRowById, updateRowById } from '../../storage/resource/rows.js';
import { getRow } from './resolve.js';
import { listOfField, realmOfRow, type ResourceSpec } from './spec.js';
import { replaceList } from '../../storage/resource/lists.js';
import { withNormalisedName } from './name-text.js';

/**
 * A realm's entries belong to the realm itself, so a realm administrator reads them and no other
 * realm's; its deleted entry is deployment-wide (the realm is gone), and its created entry becomes
 * deployment-wide when it is deleted (spec Events 3, releaseRealmOwnEvents).
 */
function eventRealm(spec: ResourceSpec, action: 'created' | 'updated' | 'deleted', row: Row): string | null {
    if (spec.realm === 'self') return action === 'deleted' ? null : row.id;
    return realmOfRow(spec, row) ?? null;
}

/** The `<entity>.created|updated|deleted` entry of a write, in its transaction (spec Events 4). */
function recordWriteEvent(tx: Tx, deps: ResourceDeps, ctx: RequestContext, spec: ResourceSpec, action: 'created' | 'updated' | 'deleted', row: Row, record: EntityRecord): Promise<void> {
    return recordEvent(tx, deps.handle.dialect, ctx, {
        name: `${spec.entity}.${action}`, refType: spec.entity, refId: row.id, realmId: eventRealm(spec, action, row), data: record,
    });
}

/** Create: route realm overrides the body; absent realm → the caller's realm (API.md §3 nested mounts). */
function resolveCreateRealm(ctx: RequestContext, definition: ResourceDefinition, input: Input): string | null {
    const { spec } = definition;
    if (!hasRealmColumn(spec)) return null;
    if (ctx.routeRealmId !== null) return ctx.routeRealmId;
    if (input.realmId !== undefined) {
        if (input.realmId === null && spec.realm === 'required') throw badRequest(`A ${spec.entity} needs a realm.`);
        return nullableTextOf(input, 'realmId') ?? null;
    }
    const realm = ctx.actor.identity?.realmId ?? null;
    if (realm === null && spec.realm === 'required') throw badRequest(`realmId is required for a ${spec.entity}.`);
    return realm;
}

function columnsOf(deps: ResourceDeps, definition: ResourceDefinition, input: Input, mode: 'create' | 'update'): Columns {
    const values: Columns = {};
    for (const field of definition.fields) {
        const writable = mode === 'create' ? field.create : field.update;
        // an id list lives in its junction table (writeLists)
        if (field.name === 'realmId' || field.type === 'idList') continue;
        if (!writable) {
            // non-writable columns still get their default on insert (builtIn false, active true …)
            if (mode === 'create' && field.default !== undefined) values[field.column] = writeValue(deps.handle.dialect, field, field.default);
            continue;
        }
        let value = input[field.name];
        if (value === undefined && mode === 'create') value = field.default;
        if (value === undefined) continue;
        values[field.column] = writeValue(deps.handle.dialect, field, value);
    }
    return values;
}

/**
 * The id lists the body names (`idList` fields), each made exactly what it says; lists the body
 * leaves out keep what they hold. Whether any list changed.
 */
async function writeLists(deps: ResourceDeps, definition: ResourceDefinition, tx: Tx, rowId: string, input: Input, mode: 'create' | 'update'): Promise<boolean> {
    let changed = false;
    for (const field of definition.fields) {
        if (field.type !== 'idList' || !(mode === 'create' ? field.create : field.update)) continue;
        const ids = input[field.name];
        if (!Array.isArray(ids)) continue;
        // ids are stored lower-case (a UUID in any case names the same row, RFC 9562 §4)
        const list = listOfField(definition.spec, field);
        if (await replaceList(tx, deps.handle.dialect, list, rowId, ids.map((id) => String(id).toLowerCase()), new Date())) changed = true;
    }
    return changed;
}

export async function createEntity(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, body: Input, forcedId?: string): Promise<EntityRecord> {
    const { spec, hooks } = definition;
    const input = withNormalisedName(definition, body);
    const realmId = hooks.createRealm ? await hooks.createRealm(ctx, input, deps.db) :
        spec.realm === 'referenced' ? await referencedRealmOfInput(deps.db, spec, definition.fields, input) :
            resolveCreateRealm(ctx, definition, input);
    const subject = { ...input, ...(hasRealmColumn(spec) ? { realmId } : {}) };
    await ctx.authorizer();
    const decidesRealm = hasRealmColumn(spec) || spec.realm === 'referenced';
    await authorizeAction(ctx, spec, hooks, 'create', { realmId: decidesRealm ? realmId : undefined, record: subject });

    const now = toDbDate(deps.handle.dialect, new Date());
    const row: Row = {
        id: forcedId ?? randomUUID(),
        ...columnsOf(deps, definition, input, 'create'),
        ...(hasRealmColumn(spec) ? { realm_id: realmId } : {}),
        created_at: now,
        updated_at: now,
    };
    return writeTransaction(deps, writeOptions(definition, ctx), async (tx: Tx) => {
        Object.assign(row, await hooks.prepareCreate?.(ctx, { ...input, realmId }, tx));
        await insertRow(tx, spec, row);
        const stored = await selectRowById(tx, spec, row.id);
        await hooks.afterCreate?.(ctx, stored, tx);
        // after afterCreate: a body naming a list replaces what the hook put there (a realm's default role)
        await writeLists(deps, definition, tx, row.id, input, 'create');
        const written = spec.lists?.length ? await selectRowById(tx, spec, row.id) : stored;
        const record = recordOf(definition, written);
        await recordWriteEvent(tx, deps, ctx, spec, 'created', written, record);
        return record;
    });
}

/** The request's authorizer loads before the transaction; the catalog is invalidated after a write to its tables. */
function writeOptions(definition: ResourceDefinition, ctx: RequestContext) {
    return { preload: () => ctx.authorizer(), invalidatesCatalog: definition.spec.invalidatesCatalog === true };
}

function sameValue(a: unknown, b: unknown): boolean {
    if (a instanceof Date || b instanceof Date) return String(a) === String(b);
    // booleans stored as 0/1 compare equal to true/false
    if (typeof a === 'boolean' || typeof b === 'boolean') return Boolean(a) === Boolean(b) && a !== null && b !== null;
    return a === b;
}

export async function updateEntity(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, key: string, body: Input): Promise<EntityRecord> {
    const { spec, hooks } = definition;
    const input = withNormalisedName(definition, body);
    return writeTransaction(deps, writeOptions(definition, ctx), async (tx: Tx, lock) => {
        const row = await getRow(tx, spec, ctx, key, lock);
        const current = recordOf(definition, row);
        await authorizeAction(ctx, spec, hooks, 'update', {
            realmId: realmOfRow(spec, row),
            record: current,
            attributeNames: Object.keys(input),
        });
        if (hasRealmColumn(spec) && ctx.routeRealmId === null && input.realmId !== undefined && input.realmId !== row.realm_id) {
            if (input.realmId === null && spec.realm === 'required') throw badRequest(`A ${spec.entity} needs a realm.`);
            // moving a row needs the permission in the target realm too
            await authorizeAction(ctx, spec, hooks, 'update', { realmId: nullableTextOf(input, 'realmId') ?? null, record: { ...current, ...input } });
        }
        if (spec.hasBuiltIn && row.built_in) {
            // a built-in row keeps its identity: bootstrap and every login find it by name
            for (const frozen of ['name', 'realmId', 'clientId']) {
                const column = definition.fields.find((field) => field.name === frozen)?.column;
                if (column && input[frozen] !== undefined && input[frozen] !== row[column]) {
                    throw badRequest(`A built-in ${spec.entity} keeps its ${frozen}.`, [{ path: [frozen], code: 'built_in', message: 'cannot change on a built-in row' }]);
                }
            }
        }
        const values: Columns = columnsOf(deps, definition, input, 'update');
        if (hasRealmColumn(spec) && ctx.routeRealmId === null && input.realmId !== undefined) values.realm_id = input.realmId;
        Object.assign(values, await hooks.prepareUpdate?.(ctx, row, input, tx));
        // a field echoed back unchanged is not written (spec beta.64 item 2)
        for (const column of Object.keys(values)) {
            if (sameValue(values[column], row[column])) delete values[column];
        }
        const listsChanged = await writeLists(deps, definition, tx, row.id, input, 'update');
        if (Object.keys(values).length === 0 && !listsChanged) return current;
        values.updated_at = toDbDate(deps.handle.dialect, new Date());
        await updateRowById(tx, spec, row.id, values);
        const stored = await selectRowById(tx, spec, row.id);
        await hooks.afterUpdate?.(ctx, row, stored, tx);
        const record = recordOf(definition, stored);
        await recordWriteEvent(tx, deps, ctx, spec, 'updated', stored, record);
        return record;
    });
}

export async function deleteEntity(
    deps: ResourceDeps,
    definition: ResourceDefinition,
    ctx: RequestContext,
    key: string,
    query: Input = {},
): Promise<EntityRecord> {
    const { spec, hooks } = definition;
    return writeTransaction(deps, writeOptions(definition, ctx), async (tx: Tx, lock) => {
        const row = await getRow(tx, spec, ctx, key, lock);
        const record = recordOf(definition, row);
        await authorizeAction(ctx, spec, hooks, 'delete', { realmId: realmOfRow(spec, row), record });
        if (spec.hasBuiltIn && row.built_in) throw badRequest(`A built-in ${spec.entity} cannot be deleted.`);
        const refusal = await hooks.refuseDelete?.(row, tx, ctx, query);
        if (refusal) throw badRequest(refusal);
        // spec Events 3: the realm's own created entry outlives it (its other entries go with it)
        if (spec.realm === 'self') await releaseRealmOwnEvents(tx, row.id);
        await deleteRowById(tx, spec, row.id);
        await recordWriteEvent(tx, deps, ctx, spec, 'deleted', row, record);
        return record;
    });
}
