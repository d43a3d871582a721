/*
 * Renders the client's route table from the server's OpenAPI document (GET /openapi.json), which
 * @fastify/swagger builds from the same TypeBox contracts the server validates with: the client's
 * request and response types are those schemas, never typed a second time. Only the JSON Schema
 * subset the contracts use is translated; anything else reads as `unknown`.
 */

type Schema = Record<string, unknown>;
interface Operation {
    parameters?: { in: string; name: string; required?: boolean; schema?: Schema }[];
    requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
    responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
    summary?: string;
}
export interface OpenApiDocument {
    paths: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, Schema> };
}

const PROJECTION_KEYWORD = 'x-realmgate-projection';
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** A JSON Schema as a TypeScript type (the subset TypeBox emits for the contracts). */
function schemaType(schema: Schema | undefined, depth = 1): string {
    if (!schema || typeof schema !== 'object') return 'unknown';
    const pad = '    '.repeat(depth);
    if (typeof schema.$ref === 'string') return `Schemas[${JSON.stringify(schema.$ref.split('/').pop())}]`;
    if ('const' in schema) return JSON.stringify(schema.const);
    if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ') || 'never';
    for (const combinator of ['anyOf', 'oneOf'] as const) {
        const members = schema[combinator];
        if (!Array.isArray(members)) continue;
        // a read's `fields=` projection branch (PROJECTION_KEYWORD of the server's http/contracts/resource-schemas.ts): the client types a
        // projection from the query it sends (src/resources.ts Projected), the default read from the other
        const typed = members.filter((member: Schema) => member[PROJECTION_KEYWORD] !== true);
        return [...new Set(typed.map((member: Schema) => schemaType(member, depth)))].join(' | ');
    }
    if (Array.isArray(schema.allOf)) return schema.allOf.map((member: Schema) => `(${schemaType(member, depth)})`).join(' & ');
    if (Array.isArray(schema.type)) return schema.type.map((type: string) => schemaType({ ...schema, type }, depth)).join(' | ');
    switch (schema.type) {
        case 'string': return 'string';
        case 'integer':
        case 'number': return 'number';
        case 'boolean': return 'boolean';
        case 'null': return 'null';
        case 'array': {
            if (Array.isArray(schema.items)) return `[${schema.items.map((item: Schema) => schemaType(item, depth)).join(', ')}]`;
            return `Array<${schemaType(schema.items as Schema | undefined, depth)}>`;
        }
        case 'object': {
            const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
            const required = new Set((schema.required ?? []) as string[]);
            const open = schema.additionalProperties !== false;
            if (properties.length === 0) return open ? 'Record<string, unknown>' : 'Record<string, never>';
            const lines = properties.map(([name, property]) => `${pad}${key(name)}${required.has(name) ? '' : '?'}: ${schemaType(property, depth + 1)};`);
            if (open) lines.push(`${pad}[member: string]: unknown;`);
            return `{\n${lines.join('\n')}\n${'    '.repeat(depth - 1)}}`;
        }
        default: return 'unknown';
    }
}

const VERBS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const pascal = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean).map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');

/**
 * The method name of a route, derived uniformly: the verb, then each segment (`{id}` reads `ById`,
 * `@me` reads `Me`); a route under the realm mount `/realms/{realmId}/…` ends in `InRealm`.
 */
function methodName(verb: string, path: string): string {
    const mount = /^\/realms\/\{realmId\}\/(.+)$/.exec(path);
    const rest = mount ? `/${mount[1]}` : path;
    const words = rest.split('/').filter(Boolean).map((segment) => {
        const param = /^\{(.+)\}$/.exec(segment);
        return param ? `By${pascal(param[1]!)}` : pascal(segment.replace(/^@/, ''));
    });
    return `${verb}${words.join('')}${mount ? 'InRealm' : ''}` || verb;
}

function successes(operation: Operation): string {
    const types = Object.entries(operation.responses)
        .filter(([status]) => /^2\d\d$/.test(status))
        .map(([, answer]) => {
            if (!answer.content) return 'null';
            const json = answer.content['application/json'];
            return json ? schemaType(json.schema, 3) : 'string';
        });
    return [...new Set(types)].join(' | ') || 'null';
}

function parametersOf(operation: Operation, where: 'path' | 'query'): string {
    const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === where);
    if (parameters.length === 0) return 'Record<never, never>';
    const lines = parameters.map((parameter) => `            ${key(parameter.name)}${parameter.required ? '' : '?'}: ${where === 'path' ? 'string' : schemaType(parameter.schema, 4)};`);
    return `{\n${lines.join('\n')}\n        }`;
}

function bodyOf(operation: Operation): string {
    const content = operation.requestBody?.content;
    if (!content) return 'never';
    const schema = (content['application/json'] ?? content['application/x-www-form-urlencoded'])?.schema;
    return schemaType(schema, 3);
}

const camel = (text: string) => text.replace(/[^A-Za-z0-9]+([A-Za-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The administered collections: a top-level `/<collection>` listed with GET whose rows are read at
 * `/<collection>/{id}` — the resource routes (API.md §1), each a namespace of the client by its
 * camelCase name. Which writes a collection has is read from the route table by the client.
 */
function collectionsOf(document: OpenApiDocument): string[] {
    return Object.keys(document.paths).sort()
        .filter((path) => /^\/[a-z][a-z0-9-]*$/.test(path) && document.paths[path]!.get && document.paths[`${path}/{id}`]?.get)
        .map((path) => `    ${key(camel(path.slice(1)))}: ${JSON.stringify(path)},`);
}

/** The whole generated module: the route table (types) and the method names (values). */
export function renderRoutes(document: OpenApiDocument): string {
    const schemas = Object.entries(document.components?.schemas ?? {})
        .map(([name, schema]) => `    ${key(name)}: ${schemaType(schema, 2)};`);
    const routes: string[] = [];
    const methods: string[] = [];
    const names = new Set<string>();
    for (const path of Object.keys(document.paths).sort()) {
        for (const verb of VERBS) {
            const operation = document.paths[path]![verb];
            if (!operation) continue;
            const route = `${verb.toUpperCase()} ${path}`;
            const name = methodName(verb, path);
            if (names.has(name)) throw new Error(`two routes derive the method name ${name}`);
            names.add(name);
            const bodyRequired = operation.requestBody?.required === true;
            routes.push([
                `    /** ${(operation.summary ?? route).replace(/\*\//g, '* /')} */`,
                `    ${JSON.stringify(route)}: {`,
                `        params: ${parametersOf(operation, 'path')};`,
                `        query: ${parametersOf(operation, 'query')};`,
                `        body: ${bodyOf(operation)};`,
                `        bodyRequired: ${bodyRequired};`,
                `        response: ${successes(operation)};`,
                '    };',
            ].join('\n'));
            methods.push(`    ${name}: ${JSON.stringify(route)},`);
        }
    }
    return [
        '// Generated by packages/client/scripts/generate-routes.ts from the server\'s GET /openapi.json.',
        '// Do not edit: run `npm run generate -w @realmgate/client`; test/routes-generated.test.ts fails when stale.',
        '',
        '/** The shared schemas of the document (the error bodies). */',
        'export interface Schemas {',
        ...schemas,
        '}',
        '',
        '/** Every route of the API: path parameters, query, body and the success answers. */',
        'export interface Routes {',
        ...routes,
        '}',
        '',
        '/** The client method of each route. */',
        'export const ROUTE_METHODS = {',
        ...methods,
        '} as const;',
        '',
        '/** The administered collections: the client namespace of each, and its path. */',
        'export const COLLECTIONS = {',
        ...collectionsOf(document),
        '} as const;',
        '',
    ].join('\n');
}
