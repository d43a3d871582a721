import { AccessErrorCode, defaultPolicyEngine, isPolicyValidationError } from '@realmgate/access';
import { issue, validationFailed, type Issue } from '../../errors/app-error.js';
import type { EntityRecord } from '../resource/records.js';
import { ENTITY_MEMBERS, REFUSED_MEMBERS } from './spec.js';

/** Largest stored configuration; a policy is evaluated on every request, so it must stay small. */
const MAX_CONFIGURATION_BYTES = 64 * 1024;

export type Configuration = Record<string, unknown>;

/**
 * The configuration members of a body: every member that is not an entity column (API.md §3:
 * the type's configuration keys sit at the top level). Members no body may carry answer 400 the
 * way the schema answers unknown members elsewhere.
 */
export function configurationOf(input: Record<string, unknown>): Configuration {
    const refused = Object.keys(input).filter((key) => REFUSED_MEMBERS.has(key));
    if (refused.length > 0) {
        throw validationFailed(refused.map((key) => issue([key], 'unknown_member', key === 'children' ?
            'is not a known member: children of a composite are policies of their own, created with parentId' :
            'is not a known member')));
    }
    const config: Configuration = {};
    for (const [key, value] of Object.entries(input)) {
        if (!ENTITY_MEMBERS.has(key)) config[key] = value;
    }
    return config;
}

/** The stored configuration of a row (the catalog's input too); a corrupt column reads as empty. */
export function storedConfiguration(row: { config: string }): Configuration {
    try {
        const parsed: unknown = JSON.parse(String(row.config));
        return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed as Configuration : {};
    } catch {
        return {};
    }
}

/** An AccessError path (relative to the node) as the path of a body member. */
function issueOf(error: { code: string; path: readonly (string | number)[]; message: string }): Issue {
    if (error.code === AccessErrorCode.UNKNOWN_POLICY_TYPE) return issue(['type'], 'unknown_policy_type', error.message);
    return issue(error.path.length > 0 ? [...error.path] : ['type'], 'invalid_policy', error.message);
}

/**
 * Validate one node's configuration with the access library's validator and return what is stored:
 * the canonical configuration keys, without type, invert and children (db/schema.ts `config`).
 * Children are rows of their own, so the node is validated with none. A refusal answers 400 with
 * the validator's path (spec Errors: an attributes policy with `$regex` → 400); a member the
 * validator does not know answers 400 too instead of being dropped silently (API.md §1: unknown
 * members are refused). A null member unsets an optional key and is not an unknown member.
 */
export function canonicalConfiguration(type: string, invert: boolean, config: Configuration, written: Configuration): Configuration {
    let canonical: Record<string, unknown>;
    try {
        canonical = defaultPolicyEngine.validate({ ...config, type, invert, children: [] });
    } catch (error) {
        if (isPolicyValidationError(error)) throw validationFailed([issueOf(error)]);
        throw error;
    }
    const { type: _type, invert: _invert, children: _children, ...stored } = canonical;
    const unknown = Object.keys(written).filter((key) => written[key] !== null && written[key] !== undefined && !(key in stored));
    if (unknown.length > 0) {
        throw validationFailed(unknown.map((key) => issue([key], 'unknown_member', `is not a configuration key of a ${type} policy`)));
    }
    const size = Buffer.byteLength(JSON.stringify(stored), 'utf8');
    if (size > MAX_CONFIGURATION_BYTES) {
        const largest = Object.keys(stored).sort((a, b) => JSON.stringify(stored[b]).length - JSON.stringify(stored[a]).length)[0];
        throw validationFailed([issue(largest ? [largest] : [], 'too_large', `the configuration exceeds ${MAX_CONFIGURATION_BYTES} bytes`)]);
    }
    return stored;
}

/**
 * The REST record of a policy: entity columns plus the configuration keys at the top level
 * (API.md §3). Entity columns win a name clash, so a configuration can never disguise a column.
 */
export function withConfiguration(record: EntityRecord, row: { config: string }): EntityRecord {
    return { ...storedConfiguration(row), ...record };
}
