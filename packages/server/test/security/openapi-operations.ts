import type { TestApp } from '../app.js';

/* The operations of GET /openapi.json, reduced to what a request generator needs. */

export interface JsonSchema {
    type?: string | string[];
    properties?: Record<string, JsonSchema>;
    required?: string[];
    anyOf?: JsonSchema[];
    items?: JsonSchema;
    enum?: unknown[];
    pattern?: string;
    minLength?: number;
    maxLength?: number;
    minimum?: number;
    maximum?: number;
}

export interface Operation {
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
    /** the OpenAPI template, e.g. `/realms/{realmId}/users/{id}` */
    path: string;
    pathParams: string[];
    queryParams: string[];
    /** the JSON request body schema, when the operation takes a body */
    body?: JsonSchema;
    /** media types the operation documents for its body */
    mediaTypes: string[];
}

interface DocumentOperation {
    parameters?: { in: string; name: string }[];
    requestBody?: { content: Record<string, { schema?: JsonSchema }> };
}

export async function loadOperations(app: TestApp): Promise<Operation[]> {
    const document = await app.json<{ paths: Record<string, Record<string, DocumentOperation>> }>({ method: 'GET', url: '/openapi.json', as: null }, 200);
    const operations: Operation[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
            const parameters = operation.parameters ?? [];
            const content = operation.requestBody?.content ?? {};
            operations.push({
                method: method.toUpperCase() as Operation['method'],
                path,
                pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
                queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
                ...(content['application/json']?.schema ? { body: content['application/json'].schema } : {}),
                mediaTypes: Object.keys(content),
            });
        }
    }
    return operations;
}

/** The collection a path's `{id}` names: the segment before it (`/realms/{realmId}/users/{id}` → users). */
export function collectionOf(path: string): string {
    const segments = path.split('/').filter(Boolean);
    const at = segments.indexOf('{id}');
    return at > 0 ? segments[at - 1]! : segments.at(-1)!;
}
