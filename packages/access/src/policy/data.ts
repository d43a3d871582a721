import type { IdentityType } from '@realmgate/core';
import { invalidInput, type PropertyPath } from '../errors.js';
import { BuiltInPolicyType } from './constants.js';
import { isPlainObject } from './path.js';

/** The subject a decision is about (spec consumer rule 1). */
export interface PolicyIdentity {
    id: string;
    type: IdentityType;
    /** null for a realm-less actor, which never satisfies own or ownOrNull */
    realmId: string | null;
    realmName: string | null;
    /** the subject id when the identity is a client, otherwise null */
    clientId: string | null;
}

/** The resource realm: an id (or name), null for a global row, or a list the resource spans (every one must be reached). */
export type RealmMatchData = string | null | (string | null)[];

/** An instant: a Date, an ISO-8601 string or epoch milliseconds. */
export type InstantInput = Date | string | number;

/**
 * Evaluation data, keyed by BuiltInPolicyType values. A key that a policy needs and that is absent
 * makes that policy pending (REALM_MATCH excepted: an absent key neutral-passes reach, rule 10).
 */
export interface PolicyData {
    [BuiltInPolicyType.IDENTITY]?: PolicyIdentity | null;
    /** the resource's realm (spec consumer rule 10) */
    [BuiltInPolicyType.REALM_MATCH]?: RealmMatchData;
    /** the resource row's attributes (or the request body being written) */
    [BuiltInPolicyType.ATTRIBUTES]?: Record<string, unknown>;
    /** the names of the attributes being written; defaults to the dotted names of ATTRIBUTES */
    [BuiltInPolicyType.ATTRIBUTE_NAMES]?: string[];
    /** the instant date policies are evaluated at; defaults to the evaluator's clock */
    [BuiltInPolicyType.DATE]?: InstantInput;
    /** the instant time policies are evaluated at; defaults to the evaluator's clock */
    [BuiltInPolicyType.TIME]?: InstantInput;
}

const DATA_KEYS = new Set<string>([
    BuiltInPolicyType.IDENTITY,
    BuiltInPolicyType.REALM_MATCH,
    BuiltInPolicyType.ATTRIBUTES,
    BuiltInPolicyType.ATTRIBUTE_NAMES,
    BuiltInPolicyType.DATE,
    BuiltInPolicyType.TIME,
]);

export function toInstant(value: unknown, path: PropertyPath): number {
    let time: number;
    if (value instanceof Date) time = value.getTime();
    else if (typeof value === 'number') time = value;
    else if (typeof value === 'string') time = Date.parse(value);
    else throw invalidInput(path, 'expected a Date, an ISO-8601 string or epoch milliseconds');
    if (!Number.isFinite(time)) {
        throw invalidInput(path, 'is not a valid instant');
    }
    return time;
}

export function validateIdentity(value: unknown, path: PropertyPath): PolicyIdentity {
    if (!isPlainObject(value)) {
        throw invalidInput(path, 'expected an identity object { id, type, realmId, realmName, clientId }');
    }
    const { id, type, realmId, realmName, clientId } = value;
    if (typeof id !== 'string' || id.length === 0) throw invalidInput([...path, 'id'], 'expected a non-empty string');
    if (type !== 'user' && type !== 'client') throw invalidInput([...path, 'type'], "expected 'user' or 'client'");
    for (const [key, field] of [['realmId', realmId], ['realmName', realmName], ['clientId', clientId]] as const) {
        if (field === undefined) throw invalidInput([...path, key], 'is required (null when not applicable)');
        if (field !== null && typeof field !== 'string') throw invalidInput([...path, key], 'expected a string or null');
    }
    return { id, type, realmId: realmId as string | null, realmName: realmName as string | null, clientId: clientId as string | null };
}

/**
 * Check evaluation data and return it as a plain record. Unknown keys are refused so a typo such
 * as `realm_match` cannot silently neutral-pass reach.
 */
export function validatePolicyData(input: unknown, path: PropertyPath = ['data']): PolicyData {
    if (input === undefined || input === null) {
        return {};
    }
    if (typeof input !== 'object' || Array.isArray(input)) {
        throw invalidInput(path, 'expected an object keyed by BuiltInPolicyType values');
    }
    const data = input as Record<string, unknown>;
    for (const key in data) {
        if (!DATA_KEYS.has(key)) {
            throw invalidInput([...path, key], `unknown data key; expected one of ${[...DATA_KEYS].join(', ')}`);
        }
    }
    // an undefined value counts as an absent key: that is the "forgotten realm value" of rule 10
    const realm = data[BuiltInPolicyType.REALM_MATCH];
    if (realm !== undefined) {
        const ok = realm === null || typeof realm === 'string' ||
            (Array.isArray(realm) && realm.every((item) => item === null || typeof item === 'string'));
        if (!ok) throw invalidInput([...path, BuiltInPolicyType.REALM_MATCH], 'expected a realm id, null or a list of them');
    }
    const attributes = data[BuiltInPolicyType.ATTRIBUTES];
    if (attributes !== undefined && (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes))) {
        throw invalidInput([...path, BuiltInPolicyType.ATTRIBUTES], 'expected an object of attributes');
    }
    const names = data[BuiltInPolicyType.ATTRIBUTE_NAMES];
    if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === 'string'))) {
        throw invalidInput([...path, BuiltInPolicyType.ATTRIBUTE_NAMES], 'expected a list of attribute names');
    }
    for (const key of [BuiltInPolicyType.DATE, BuiltInPolicyType.TIME] as const) {
        if (data[key] !== undefined) toInstant(data[key], [...path, key]);
    }
    if (data[BuiltInPolicyType.IDENTITY] !== undefined && data[BuiltInPolicyType.IDENTITY] !== null) {
        validateIdentity(data[BuiltInPolicyType.IDENTITY], [...path, BuiltInPolicyType.IDENTITY]);
    }
    return data as PolicyData;
}

/**
 * Runtime companion of the PolicyData type, so the identifier exists for JavaScript consumers too:
 * `PolicyData.create({ realmMatch: row.realmId })` validates and returns the plain record.
 */
export const PolicyData = Object.freeze({
    keys: Object.freeze([...DATA_KEYS]) as readonly string[],
    create(init?: PolicyData): PolicyData {
        return { ...validatePolicyData(init) };
    },
});
