import { AccessErrorCode, invalidInput, type AccessError, type PropertyPath } from '../errors.js';

/** A configuration the type's validator refuses; the message names the offending key. */
export function invalidPolicy(path: PropertyPath, expectation: string): AccessError {
    return invalidInput(path, expectation, AccessErrorCode.INVALID_POLICY);
}

/** `invert` is common to every type: optional, boolean, default false. */
export function readInvert(input: Record<string, unknown>, path: PropertyPath): boolean {
    return readOptionalBoolean(input, 'invert', path) ?? false;
}

export function readOptionalBoolean(input: Record<string, unknown>, key: string, path: PropertyPath): boolean | undefined {
    const value = input[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw invalidPolicy([...path, key], 'expected a boolean');
    return value;
}

export function readOptionalInteger(
    input: Record<string, unknown>,
    key: string,
    path: PropertyPath,
    min: number,
    max: number,
): number | undefined {
    const value = input[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        throw invalidPolicy([...path, key], `expected an integer from ${min} to ${max}`);
    }
    return value;
}

/** A list of unique non-empty strings; a single string is accepted as a list of one. */
export function readOptionalStringList(input: Record<string, unknown>, key: string, path: PropertyPath): string[] | undefined {
    const value = input[key];
    if (value === undefined || value === null) return undefined;
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item.length === 0)) {
        throw invalidPolicy([...path, key], 'expected a list of non-empty strings');
    }
    return [...new Set(list as string[])];
}
