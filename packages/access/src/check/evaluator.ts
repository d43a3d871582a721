import { invalidInput, PermissionDeniedError } from '../errors.js';
import { isPlainObject } from '../policy/path.js';
import type { AuthorizationCheckEntry } from '../catalog/types.js';

/** A realm to gate on: a realm id (as requested from the check), null for global rows, absent for "any requested realm". */
export type CheckRealm = string | null | undefined;

export interface AuthorizationCheckEvaluator {
    /** the names the answer lists, in answer order */
    readonly names: readonly string[];
    has(name: string, realm?: CheckRealm): boolean;
    hasOneOf(names: readonly string[], realm?: CheckRealm): boolean;
    hasAll(names: readonly string[], realm?: CheckRealm): boolean;
    /** the same gate in the catalog evaluator's shape: resolves when allowed, throws permission_denied otherwise */
    evaluate(ctx: { name: string | readonly string[]; realm?: CheckRealm }): Promise<void>;
    evaluateOneOf(ctx: { name: string | readonly string[]; realm?: CheckRealm }): Promise<void>;
}

function readAnswer(answer: unknown): Map<string, (string | null)[]> {
    if (!Array.isArray(answer)) throw invalidInput(['answer'], 'expected the POST /authorization/check array');
    const byName = new Map<string, (string | null)[]>();
    answer.forEach((entry: unknown, index) => {
        if (!isPlainObject(entry)) throw invalidInput(['answer', index], 'expected { name, realms }');
        const { name, realms } = entry;
        if (typeof name !== 'string' || name.length === 0) throw invalidInput(['answer', index, 'name'], 'expected a non-empty string');
        if (!Array.isArray(realms) || realms.some((realm) => realm !== null && typeof realm !== 'string')) {
            throw invalidInput(['answer', index, 'realms'], 'expected a list of realm ids or null');
        }
        byName.set(name, [...(byName.get(name) ?? []), ...(realms as (string | null)[])]);
    });
    return byName;
}

function readNameList(value: unknown): readonly string[] {
    if (typeof value === 'string' && value.length > 0) return [value];
    if (Array.isArray(value) && value.length > 0 && value.every((name) => typeof name === 'string' && name.length > 0)) return value;
    throw invalidInput(['name'], 'expected a permission name or a non-empty list of names');
}

/**
 * Advisory gating over a POST /authorization/check answer, for public clients and consoles
 * (spec batch-check rules 9 and 10, consumer rule 13): an upper bound on what may be attempted,
 * never an entitlement — the server still decides every request. An absent name is denied.
 */
export function createAuthorizationCheckEvaluator(answer: readonly AuthorizationCheckEntry[] | unknown): AuthorizationCheckEvaluator {
    const byName = readAnswer(answer);
    const has = (name: string, realm?: CheckRealm): boolean => {
        if (typeof name !== 'string') throw invalidInput(['name'], 'expected a permission name');
        if (realm !== undefined && realm !== null && typeof realm !== 'string') throw invalidInput(['realm'], 'expected a realm id, null or nothing');
        const realms = byName.get(name);
        if (!realms) return false;
        return realm === undefined ? realms.length > 0 : realms.includes(realm);
    };
    const hasAll = (names: readonly string[], realm?: CheckRealm) => readNameList(names).every((name) => has(name, realm));
    const hasOneOf = (names: readonly string[], realm?: CheckRealm) => readNameList(names).some((name) => has(name, realm));
    const gate = (ctx: { name: string | readonly string[]; realm?: CheckRealm }, every: boolean): Promise<void> => {
        try {
            if (!isPlainObject(ctx)) throw invalidInput([], 'expected { name, realm? }');
            const names = readNameList(ctx.name);
            const allowed = every ? hasAll(names, ctx.realm) : hasOneOf(names, ctx.realm);
            return allowed ? Promise.resolve() : Promise.reject(new PermissionDeniedError(names));
        } catch (error) {
            return Promise.reject(error);
        }
    };
    return {
        names: Object.freeze([...byName.keys()]),
        has,
        hasAll,
        hasOneOf,
        evaluate: (ctx) => gate(ctx, true),
        evaluateOneOf: (ctx) => gate(ctx, false),
    };
}
