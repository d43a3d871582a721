const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Read an attribute by name. A literal key wins (`'a.b'` stored as one key); otherwise a dotted
 * name walks nested objects (`profile.country`). Missing anywhere on the way yields undefined.
 */
export function getAttributeValue(source: unknown, name: string): unknown {
    if (typeof source !== 'object' || source === null) {
        return undefined;
    }
    if (hasOwn.call(source, name)) {
        return (source as Record<string, unknown>)[name];
    }
    if (name.indexOf('.') === -1) {
        return undefined;
    }
    let current: unknown = source;
    for (const part of name.split('.')) {
        if (typeof current !== 'object' || current === null || !hasOwn.call(current, part)) {
            return undefined;
        }
        current = (current as Record<string, unknown>)[part];
    }
    return current;
}

/** Flatten nested plain objects to dotted names (arrays and other values are leaves). */
export function flattenAttributeNames(source: Record<string, unknown>, prefix = '', out: string[] = []): string[] {
    for (const key of Object.keys(source)) {
        const value = source[key];
        const name = prefix ? `${prefix}.${key}` : key;
        if (isPlainObject(value) && Object.keys(value).length > 0) {
            flattenAttributeNames(value, name, out);
        } else {
            out.push(name);
        }
    }
    return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return false;
    }
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
}
