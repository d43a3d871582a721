/**
 * The policy types the server's access library registers (packages/access/src/policy/registry.ts)
 * and the configuration keys each one validates (packages/access/src/policy/types/*), as form
 * fields of the tree editor. A key sits at the top level of the policy's body (API.md §3).
 */
export interface ConfigField {
    key: string;
    label: string;
    kind: 'text' | 'number' | 'select' | 'checkbox' | 'list' | 'json' | 'checks';
    options?: { value: string; label: string }[];
    help?: string;
    placeholder?: string;
    /** shown (and sent) only when this holds of the node's configuration */
    when?: (config: Record<string, unknown>) => boolean;
    /** the form value of an absent key */
    empty?: unknown;
}

export interface PolicyType { type: string; label: string; fields: ConfigField[] }

const REALM_SCOPES = [
    { value: '', label: 'Same realm (no reach)' },
    { value: 'own', label: 'own' },
    { value: 'ownOrNull', label: 'ownOrNull' },
    { value: 'any', label: 'any' },
    { value: 'none', label: 'none' },
];

export const POLICY_TYPES: PolicyType[] = [
    {
        type: 'composite', label: 'Composite (all / any / majority of its children)',
        fields: [{
            key: 'decisionStrategy', label: 'Decision strategy', kind: 'select', empty: 'unanimous',
            options: [
                { value: 'unanimous', label: 'unanimous (all children pass)' },
                { value: 'affirmative', label: 'affirmative (any child passes)' },
                { value: 'consensus', label: 'consensus (more pass than fail)' },
            ],
        }],
    },
    {
        type: 'attributes', label: 'Attributes (query over the resource)',
        fields: [{ key: 'query', label: 'Query (JSON)', kind: 'json', empty: '{}', help: 'A MongoDB-style query over the attributes, e.g. {"name": {"$in": ["a", "b"]}}; {} matches all.' }],
    },
    {
        type: 'attributeNames', label: 'Attribute names (which attributes may be written)',
        fields: [{ key: 'names', label: 'Attribute names', kind: 'list', help: 'Comma-separated. Without invert an allow-list, with invert a deny-list.' }],
    },
    {
        type: 'date', label: 'Date (a window of calendar dates or instants)',
        fields: [
            { key: 'start', label: 'Start', kind: 'text', placeholder: '2026-01-01 or 2026-01-01T08:00:00Z', help: 'A date (whole UTC day) or an ISO 8601 date-time.' },
            { key: 'end', label: 'End (inclusive)', kind: 'text', placeholder: '2026-12-31' },
        ],
    },
    {
        type: 'time', label: 'Time (a daily, weekly, monthly or yearly UTC window)',
        fields: [
            {
                key: 'interval', label: 'Interval', kind: 'select', empty: 'daily',
                options: ['daily', 'weekly', 'monthly', 'yearly'].map((value) => ({ value, label: value })),
            },
            { key: 'start', label: 'Start (UTC)', kind: 'text', placeholder: 'HH:MM', help: 'Absent: 00:00.' },
            { key: 'end', label: 'End (UTC, inclusive)', kind: 'text', placeholder: 'HH:MM', help: 'Absent: 23:59:59.' },
            { key: 'dayOfWeek', label: 'Day of the week (0 = Sunday)', kind: 'number', when: (config) => config.interval === 'weekly' },
            { key: 'dayOfMonth', label: 'Day of the month (1–31)', kind: 'number', when: (config) => config.interval === 'monthly' },
            { key: 'dayOfYear', label: 'Day of the year (1–366)', kind: 'number', when: (config) => config.interval === 'yearly' },
        ],
    },
    {
        type: 'identity', label: 'Identity (the caller is signed in)',
        fields: [{ key: 'types', label: 'Identity types', kind: 'checks', options: [{ value: 'user', label: 'User' }, { value: 'client', label: 'Client' }], help: 'None checked: any identity.' }],
    },
    {
        type: 'realmMatch', label: 'Realm match (the resource is in the caller\'s realm)',
        fields: [
            { key: 'attributeName', label: 'Attribute names', kind: 'list', placeholder: 'realmId', help: 'Comma-separated; empty: realmId.' },
            { key: 'attributeNameStrict', label: 'Every named attribute must match', kind: 'checkbox', empty: true },
            { key: 'attributeNullMatchAll', label: 'A null attribute matches every realm', kind: 'checkbox', empty: false },
            { key: 'scope', label: 'Realm reach', kind: 'select', empty: '', options: REALM_SCOPES },
        ],
    },
    { type: 'permissionBinding', label: 'Permission binding (the caller holds a grant)', fields: [] },
];

export const typeOf = (type: string): PolicyType | undefined => POLICY_TYPES.find((entry) => entry.type === type);
