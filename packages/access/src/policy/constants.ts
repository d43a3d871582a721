/**
 * Built-in policy types; the values double as the keys of evaluation data (PolicyData), so
 * `data[BuiltInPolicyType.REALM_MATCH]` carries the resource realm (spec consumer rule 7).
 */
export const BuiltInPolicyType = {
    COMPOSITE: 'composite',
    ATTRIBUTES: 'attributes',
    ATTRIBUTE_NAMES: 'attributeNames',
    DATE: 'date',
    TIME: 'time',
    IDENTITY: 'identity',
    REALM_MATCH: 'realmMatch',
    PERMISSION_BINDING: 'permissionBinding',
} as const;

export type BuiltInPolicyType = typeof BuiltInPolicyType[keyof typeof BuiltInPolicyType];

/**
 * The node the server sends for a policy tree outside the caller's reach (spec catalog rule 3).
 * No library version registers this type, so no consumer can project it.
 */
export const WITHHELD_POLICY_TYPE = '$withheld';
