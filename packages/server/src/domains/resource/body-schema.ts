import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { FieldSpec, ResourceSpec } from './spec.js';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

function fieldSchema(field: FieldSpec): TSchema {
    let schema: TSchema;
    switch (field.type) {
        case 'boolean':
            schema = Type.Boolean();
            break;
        case 'integer':
            schema = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });
            break;
        case 'uuid':
            schema = Type.String({ pattern: UUID });
            break;
        case 'enum':
            schema = Type.Union((field.values ?? []).map((value) => Type.Literal(value)));
            break;
        case 'stringList':
            schema = Type.Array(Type.String({ minLength: 1, maxLength: field.maxLength ?? 128 }), { maxItems: 64, uniqueItems: true });
            break;
        case 'idList':
            schema = Type.Array(Type.String({ pattern: UUID }), { maxItems: 64, uniqueItems: true });
            break;
        case 'json':
            // attribute values keep their type (spec beta.68 item 3); the size is capped after serialising
            schema = Type.Unknown();
            break;
        case 'date':
            schema = Type.String({ format: 'date-time' });
            break;
        default:
            schema = Type.String({
                minLength: field.minLength ?? 1,
                maxLength: field.maxLength ?? 255,
                ...(field.pattern ? { pattern: field.pattern } : {}),
            });
    }
    return field.nullable && field.type !== 'json' ? Type.Union([schema, Type.Null()]) : schema;
}

/**
 * The create and update body schemas of a resource: unknown members are refused (400 with
 * issues), never silently dropped; `extra` adds members a resource handles itself.
 */
export function bodySchemas(
    spec: ResourceSpec,
    fields: FieldSpec[],
    extra: Record<string, TSchema> = {},
    /** let members beyond the fields through (hooks.openBody); the fields are still checked */
    open = false,
): { create: TObject; update: TObject } {
    const create: Record<string, TSchema> = {};
    const update: Record<string, TSchema> = {};
    const required: string[] = [];
    for (const field of fields) {
        if (field.create) {
            create[field.name] = fieldSchema(field);
            if (field.create === 'required') required.push(field.name);
        }
        // an open body lets every member through, so a creatable field it may carry on update
        // (a policy's realmId: a realm move) keeps its type there too: a wrong-typed value answers
        // 400 before it reaches authorization, never the access engine
        if (field.update || (open && field.create)) update[field.name] = fieldSchema(field);
    }
    for (const [name, schema] of Object.entries(extra)) {
        create[name] = schema;
        update[name] = schema;
    }
    const options = { additionalProperties: open, $id: undefined };
    return {
        create: Type.Object(
            Object.fromEntries(Object.entries(create).map(([name, schema]) => [name, required.includes(name) ? schema : Type.Optional(schema)])),
            { ...options, title: `${spec.entity}.create` },
        ),
        update: Type.Object(
            Object.fromEntries(Object.entries(update).map(([name, schema]) => [name, Type.Optional(schema)])),
            { ...options, title: `${spec.entity}.update` },
        ),
    };
}
