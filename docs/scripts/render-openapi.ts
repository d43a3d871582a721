/*
 * The API reference page's body, rendered from the server's OpenAPI 3.1 document into Markdown at
 * build time: one section per tag, one subsection per operation (`METHOD /path`) with its
 * authentication, parameters, request body members and answers. Markdown rather than a client-side
 * component, so the page is plain static HTML that VitePress's dead-link check and search index see.
 */

interface OpenApiSchema {
    type?: string | string[];
    format?: string;
    enum?: unknown[];
    const?: unknown;
    anyOf?: OpenApiSchema[];
    oneOf?: OpenApiSchema[];
    allOf?: OpenApiSchema[];
    items?: OpenApiSchema;
    properties?: Record<string, OpenApiSchema>;
    required?: string[];
    description?: string;
    title?: string;
    $ref?: string;
}

interface OpenApiParameter {
    name: string;
    in: string;
    required?: boolean;
    description?: string;
    schema?: OpenApiSchema;
}

interface OpenApiOperation {
    summary?: string;
    description?: string;
    tags?: string[];
    parameters?: OpenApiParameter[];
    requestBody?: { required?: boolean; description?: string; content?: Record<string, { schema?: OpenApiSchema }> };
    security?: Record<string, string[]>[];
    responses?: Record<string, { description?: string; content?: Record<string, { schema?: OpenApiSchema }> }>;
}

export interface OpenApiDocument {
    openapi: string;
    info: { title: string; version: string; description?: string };
    paths: Record<string, Record<string, OpenApiOperation>>;
    components?: { securitySchemes?: Record<string, { description?: string }> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every `METHOD /path` the document declares, in document order (what the reference must cover). */
export function listOperations(document: OpenApiDocument): { method: string; path: string }[] {
    const operations: { method: string; path: string }[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
        for (const method of METHODS) if (item[method]) operations.push({ method: method.toUpperCase(), path });
    }
    return operations;
}

/** A table cell: one line, pipes escaped (GFM tables end a cell at an unescaped `|`). */
function cell(text: string | undefined): string {
    return (text ?? '').replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

/** A short type expression for a schema: `string (uuid)`, `string | null`, `array of object`, `"a" | "b"`. */
function describeType(schema: OpenApiSchema | undefined): string {
    if (!schema) return 'any';
    if (schema.$ref) return schema.$ref.split('/').pop() ?? 'object';
    if (schema.const !== undefined) return JSON.stringify(schema.const);
    if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
    const union = schema.anyOf ?? schema.oneOf;
    if (union) return [...new Set(union.map(describeType))].join(' | ');
    if (schema.allOf) return schema.allOf.map(describeType).join(' & ');
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (types.length === 0) return schema.properties ? 'object' : 'any';
    return types
        .map((type) => {
            if (type === 'array') return `array of ${describeType(schema.items)}`;
            return schema.format ? `${type} (${schema.format})` : type;
        })
        .join(' | ');
}

function members(schema: OpenApiSchema): string[] {
    const lines = ['| member | type | required | description |', '|---|---|---|---|'];
    const required = new Set(schema.required ?? []);
    for (const [name, member] of Object.entries(schema.properties ?? {})) {
        lines.push(`| \`${name}\` | ${cell(`\`${describeType(member)}\``)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(member.description)} |`);
    }
    return lines;
}

function authentication(operation: OpenApiOperation): string {
    const requirements = operation.security ?? [];
    const schemes = requirements.flatMap((requirement) => Object.keys(requirement));
    const anonymous = requirements.some((requirement) => Object.keys(requirement).length === 0);
    if (schemes.length === 0) return 'none';
    const named = schemes.map((scheme) => (scheme === 'basic' ? 'Basic' : scheme === 'bearer' ? 'Bearer' : scheme)).join(' or ');
    return anonymous ? `optional (${named})` : named;
}

function renderOperation(method: string, path: string, operation: OpenApiOperation): string[] {
    const lines = [`### \`${method.toUpperCase()} ${path}\``, ''];
    if (operation.summary) lines.push(operation.summary, '');
    if (operation.description && operation.description !== operation.summary) lines.push(operation.description, '');
    lines.push(`Authentication: ${authentication(operation)}.`, '');
    const parameters = operation.parameters ?? [];
    if (parameters.length > 0) {
        lines.push('| parameter | in | type | required | description |', '|---|---|---|---|---|');
        for (const parameter of parameters) {
            lines.push(`| \`${parameter.name}\` | ${parameter.in} | ${cell(`\`${describeType(parameter.schema)}\``)} | ${parameter.required ? 'yes' : 'no'} | ${cell(parameter.description)} |`);
        }
        lines.push('');
    }
    const body = operation.requestBody;
    if (body) {
        const types = Object.keys(body.content ?? {});
        lines.push(`Body (${types.map((type) => `\`${type}\``).join(', ')}${body.required ? '' : ', optional'})${body.description ? `: ${body.description}` : ''}`, '');
        const schema = Object.values(body.content ?? {})[0]?.schema;
        if (schema?.properties && Object.keys(schema.properties).length > 0) lines.push(...members(schema), '');
    }
    const responses = Object.entries(operation.responses ?? {});
    if (responses.length > 0) {
        lines.push('| status | answer |', '|---|---|');
        for (const [status, response] of responses) {
            const schema = Object.values(response.content ?? {})[0]?.schema;
            const shape = schema ? ` (\`${describeType(schema)}\`)` : '';
            lines.push(`| ${status} | ${cell(`${response.description ?? ''}${shape}`)} |`);
        }
        lines.push('');
    }
    return lines;
}

/** The reference's Markdown body: wrapped in `v-pre` so `{{…}}` in descriptions stays text, not a Vue interpolation. */
export function renderOpenApi(document: OpenApiDocument): string {
    const byTag = new Map<string, string[]>();
    for (const [path, item] of Object.entries(document.paths)) {
        for (const method of METHODS) {
            const operation = item[method];
            if (!operation) continue;
            const tag = operation.tags?.[0] ?? 'other';
            const section = byTag.get(tag) ?? [];
            section.push(...renderOperation(method, path, operation));
            byTag.set(tag, section);
        }
    }
    const lines = [
        '<!-- generated by docs/scripts/generate-reference.ts from GET /openapi.json; do not edit -->',
        '',
        `${document.info.title} ${document.info.version}, OpenAPI ${document.openapi}, ${listOperations(document).length} operations.`,
        '',
        '::: v-pre',
        '',
    ];
    for (const [tag, section] of [...byTag].sort(([a], [b]) => a.localeCompare(b))) {
        lines.push(`## ${tag}`, '', ...section);
    }
    lines.push(':::', '');
    return lines.join('\n');
}
