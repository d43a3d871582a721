import { Type, type Static } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, ReadQuery, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestContext } from '../../authz/request-context.js';
import { AppError } from '../../errors/app-error.js';
import { recordEvent } from '../../domains/events.js';
import { authorizeAction } from '../../domains/resource/authorize.js';
import { typed, type AnyDb, type AnyTx, type ResourceDefinition } from '../../domains/resource/context.js';
import { shapeRow } from '../../domains/resource/read.js';
import { toRecord, type EntityRecord, type Row } from '../../domains/resource/records.js';
import { getRow } from '../../domains/resource/resolve.js';
import type { RouteDeps } from './resource.js';
import { mapWriteError } from '../../domains/resource/write.js';
import { toDbDate } from '../../db/values.js';
import { callerRow } from './users.js';
import { defaultRotationMode, flagColumns, generateSecret, modeOfRow, SECRET_MAX_LENGTH, SECRET_MODES, type SecretStore } from '../../domains/clients/secret.js';

const RotationBody = Type.Object({
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: SECRET_MAX_LENGTH })),
    mode: Type.Optional(Type.Union(SECRET_MODES.map((mode) => Type.Literal(mode)))),
}, { additionalProperties: false, title: 'client.secret' });
type RotationBody = Static<typeof RotationBody>;

export interface ClientRouteDeps extends RouteDeps {
    store: SecretStore;
}

interface Rotated {
    data: EntityRecord;
    meta: { secret: string };
}

/**
 * Rotate a client's secret (spec client routes, States, Events 4): in the requested mode or by the
 * default rule, with a given or generated value, under a row lock; the plaintext is answered once
 * under meta.secret and never stored in the event.
 */
async function rotate(deps: ClientRouteDeps, definition: ResourceDefinition, ctx: RequestContext, key: string, body: RotationBody): Promise<Rotated> {
    const { spec, hooks } = definition;
    // grants and catalog load before the transaction: SQLite has one connection, which the transaction holds
    await ctx.authorizer();
    try {
        return await (deps.db as AnyDb).transaction().execute(async (tx: AnyTx) => {
            const row = await getRow(tx, spec, ctx, key, { forUpdate: deps.handle.dialect !== 'sqlite' });
            // client_update on the row, or client_self_manage on oneself; choosing a storage mode
            // writes the denylisted secretHashed/secretEncrypted, so a client cannot change its own
            await authorizeAction(ctx, spec, hooks, 'update', {
                realmId: row.realm_id as string,
                record: toRecord(definition.fields, row),
                attributeNames: body.mode ? ['secret', 'secretHashed', 'secretEncrypted'] : ['secret'],
            });
            const previousMode = modeOfRow(row);
            const mode = body.mode ?? defaultRotationMode(row);
            const plaintext = body.secret ?? generateSecret();
            await tx.updateTable(spec.table).set({
                secret: await deps.store.store(tx, row.realm_id as string, mode, plaintext),
                ...flagColumns(deps.handle.dialect, mode),
                updated_at: toDbDate(deps.handle.dialect, new Date()),
            }).where('id', '=', row.id).execute();
            const stored = await tx.selectFrom(spec.table).selectAll().where('id', '=', row.id).executeTakeFirstOrThrow() as Row;
            await recordEvent(typed(tx), deps.handle.dialect, ctx, {
                name: 'clientSecretRotated',
                refType: spec.entity,
                refId: row.id as string,
                realmId: row.realm_id as string,
                data: { mode, previousMode },
            });
            return { data: toRecord(definition.fields, stored), meta: { secret: plaintext } };
        });
    } catch (error) {
        if (error instanceof AppError) throw error;
        return mapWriteError(error);
    }
}

/** A rotation may be sent without a body: everything in it is optional. */
async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
    if (request.body === undefined || request.body === null) request.body = {};
}

/** `GET /clients/@me`, `POST /clients/:id/secret` and `POST /clients/@me/secret` (API.md §1). */
export function registerClientRoutes(app: FastifyInstance, deps: ClientRouteDeps, definition: ResourceDefinition, prefix: string): void {
    const base = `${prefix}/${definition.spec.collection}`;
    const tags = [definition.spec.collection];
    const record = recordSchema(definition);
    const mountParams = prefix ? { params: idParams(prefix, []) } : {};
    const rotated = Type.Object({ data: record, meta: Type.Object({ secret: Type.String({ description: 'The new plaintext secret, answered once.' }) }) }, {
        description: 'The client and its new secret.',
    });
    const rotation = (summary: string, params: ReturnType<typeof idParams> | undefined) => ({
        ...contract({ auth: 'required', tags, summary, ...(params ? { params } : {}), body: RotationBody, response: { 200: rotated }, errors: [409] }),
        preValidation: emptyBodyAsObject,
    });

    // reading oneself needs no client_read grant (the caller proved it is this client); the
    // secret follows the usual rule, so fields=+secret shows a client its own secret
    app.get(`${base}/@me`, contract({
        auth: 'required', tags, summary: 'The calling client', ...mountParams, querystring: ReadQuery,
        response: { 200: singleEnvelope(record, 'The caller\'s own client record.') },
    }), async (request) => {
        const ctx = request.context;
        const row = await callerRow(deps, definition, ctx, 'client');
        return { data: await shapeRow(ctx, definition, row, request.query as Record<string, unknown>), meta: {} };
    });
    app.post<{ Params: { id: string }; Body: RotationBody }>(`${base}/:id/secret`, rotation('Rotate a client\'s secret', idParams(prefix)), async (request) => {
        const ctx = request.context;
        return rotate(deps, definition, ctx, request.params.id, request.body);
    });
    app.post<{ Body: RotationBody }>(`${base}/@me/secret`, rotation('Rotate the calling client\'s secret', prefix ? idParams(prefix, []) : undefined), async (request) => {
        const ctx = request.context;
        const row = await callerRow(deps, definition, ctx, 'client');
        return rotate(deps, definition, ctx, row.id as string, request.body);
    });
}
