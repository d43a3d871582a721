import type { PropertyPath } from '../../errors.js';
import { BuiltInPolicyType } from '../constants.js';
import type { PolicyData } from '../data.js';
import { Outcome } from '../outcome.js';
import { flattenAttributeNames } from '../path.js';
import type { CanonicalPolicy, CompiledPolicy, PolicyTypeDefinition } from '../types.js';
import { invalidPolicy, readInvert, readOptionalStringList } from '../validation.js';

/**
 * Restricts which attributes may be written. Without invert `names` is an allow-list (every
 * name being written must be listed); with invert it is a deny-list checked per key (no name
 * being written may be listed). Invert is deliberately not a negation of the whole verdict:
 * negating "all listed" would give "at least one unlisted", which no administrator means.
 */
export interface AttributeNamesPolicy extends CanonicalPolicy {
    type: typeof BuiltInPolicyType.ATTRIBUTE_NAMES;
    invert: boolean;
    /** non-empty, unique, in the order written; may be empty (allow nothing / deny nothing) */
    names: string[];
}

export const attributeNamesPolicyType: PolicyTypeDefinition<AttributeNamesPolicy> = {
    type: BuiltInPolicyType.ATTRIBUTE_NAMES,

    validate(input: Record<string, unknown>, path: PropertyPath): AttributeNamesPolicy {
        const names = readOptionalStringList(input, 'names', path);
        if (names === undefined) {
            throw invalidPolicy([...path, 'names'], 'is required: a list of attribute names (may be empty)');
        }
        return { type: BuiltInPolicyType.ATTRIBUTE_NAMES, invert: readInvert(input, path), names };
    },

    build(policy: AttributeNamesPolicy): CompiledPolicy {
        const isListed = listedTest(policy.names);
        const touchesListed = touchesTest(policy.names, isListed);
        const invert = policy.invert === true;
        const settle = (data: PolicyData): boolean | null => {
            const written = namesBeingWritten(data);
            if (written === null) return null;
            return invert ? written.every((name) => !touchesListed(name)) : written.every(isListed);
        };
        return {
            policy,
            containsBinding: false,
            evaluate(ctx) {
                const settled = settle(ctx.data);
                if (settled === null) return Outcome.PENDING;
                return settled ? Outcome.PASS : Outcome.FAIL;
            },
            // the names being written are request data, never a row column: settle now or post-evaluate
            lower: (ctx) => settle(ctx.data),
        };
    },
};

/** Explicit names win: a caller may know the written keys better than the flattened body shows. */
function namesBeingWritten(data: PolicyData): readonly string[] | null {
    const names = data[BuiltInPolicyType.ATTRIBUTE_NAMES];
    if (names !== undefined && names !== null) return names;
    const attributes = data[BuiltInPolicyType.ATTRIBUTES];
    if (attributes !== undefined && attributes !== null) return flattenAttributeNames(attributes);
    return null;
}

/**
 * A name counts as listed when it or one of its dotted prefixes is listed: listing `profile`
 * covers `profile.city`, since the whole object is what the administrator named.
 */
function listedTest(names: readonly string[]): (name: string) => boolean {
    const listed = new Set(names);
    return (name) => {
        if (listed.has(name)) return true;
        for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1)) {
            if (listed.has(name.slice(0, dot))) return true;
        }
        return false;
    };
}

/**
 * Deny-list test: a written name is refused when it is listed, lies under a listed name, or is a
 * parent of one — writing `profile` wholesale (for example `{ profile: null }`) overwrites a denied
 * `profile.city`, so a deny-list must refuse the parent too.
 */
function touchesTest(names: readonly string[], isListed: (name: string) => boolean): (name: string) => boolean {
    return (name) => {
        if (isListed(name)) return true;
        const prefix = `${name}.`;
        return names.some((listed) => listed.startsWith(prefix));
    };
}
