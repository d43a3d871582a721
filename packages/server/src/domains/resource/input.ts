import type { Input } from './context.js';

/*
 * Members of a body the route schema already validated (http/routes/resource.ts, body-schema.ts),
 * read with the type the schema gave them. The checks narrow for the compiler; on a validated body
 * they never fail, and a member of another type reads as absent rather than being trusted.
 */

/** A string member; undefined when absent. */
export function textOf(input: Input, name: string): string | undefined {
    const value = input[name];
    return typeof value === 'string' ? value : undefined;
}

/** A nullable string member (a reference that may be cleared); undefined when absent. */
export function nullableTextOf(input: Input, name: string): string | null | undefined {
    const value = input[name];
    if (value === null) return null;
    return typeof value === 'string' ? value : undefined;
}

/** A boolean member; undefined when absent. */
export function flagOf(input: Input, name: string): boolean | undefined {
    const value = input[name];
    return typeof value === 'boolean' ? value : undefined;
}
