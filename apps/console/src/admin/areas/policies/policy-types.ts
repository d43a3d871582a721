import { t } from '../../../shared/i18n/i18n.js';
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
    { value: '', label: t('pt.sameRealm') },
    { value: 'own', label: 'own' },
    { value: 'ownOrNull', label: 'ownOrNull' },
    { value: 'any', label: 'any' },
    { value: 'none', label: 'none' },
];

export const POLICY_TYPES: PolicyType[] = [
    {
        type: 'composite', label: t('pt.composite'),
        fields: [{
            key: 'decisionStrategy', label: t('list.decisionStrategy'), kind: 'select', empty: 'unanimous',
            options: [
                { value: 'unanimous', label: t('pt.unanimous') },
                { value: 'affirmative', label: t('pt.affirmative') },
                { value: 'consensus', label: t('perm.consensus') },
            ],
        }],
    },
    {
        type: 'attributes', label: t('pt.attributes'),
        fields: [{ key: 'query', label: t('pt.query'), kind: 'json', empty: '{}', help: t('pt.queryHelp') }],
    },
    {
        type: 'attributeNames', label: t('pt.attributeNamesType'),
        fields: [{ key: 'names', label: t('pt.attributeNames'), kind: 'list', help: t('pt.namesHelp') }],
    },
    {
        type: 'date', label: t('pt.date'),
        fields: [
            { key: 'start', label: t('pt.start'), kind: 'text', placeholder: '2026-01-01 or 2026-01-01T08:00:00Z', help: t('pt.startHelp') },
            { key: 'end', label: t('pt.end'), kind: 'text', placeholder: '2026-12-31' },
        ],
    },
    {
        type: 'time', label: t('pt.time'),
        fields: [
            {
                key: 'interval', label: t('pt.interval'), kind: 'select', empty: 'daily',
                options: ['daily', 'weekly', 'monthly', 'yearly'].map((value) => ({ value, label: value })),
            },
            { key: 'start', label: t('pt.startUtc'), kind: 'text', placeholder: 'HH:MM', help: t('pt.absentStart') },
            { key: 'end', label: t('pt.endUtc'), kind: 'text', placeholder: 'HH:MM', help: t('pt.absentEnd') },
            { key: 'dayOfWeek', label: t('pt.dayOfWeek'), kind: 'number', when: (config) => config.interval === 'weekly' },
            { key: 'dayOfMonth', label: t('pt.dayOfMonth'), kind: 'number', when: (config) => config.interval === 'monthly' },
            { key: 'dayOfYear', label: t('pt.dayOfYear'), kind: 'number', when: (config) => config.interval === 'yearly' },
        ],
    },
    {
        type: 'identity', label: t('pt.identity'),
        fields: [{ key: 'types', label: t('pt.identityTypes'), kind: 'checks', options: [{ value: 'user', label: t('sessions.user') }, { value: 'client', label: t('sessions.client') }], help: t('pt.anyIdentity') }],
    },
    {
        type: 'realmMatch', label: t('pt.realmMatch'),
        fields: [
            { key: 'attributeName', label: t('pt.attributeNames'), kind: 'list', placeholder: 'realmId', help: t('pt.realmIdHelp') },
            { key: 'attributeNameStrict', label: t('pt.strict'), kind: 'checkbox', empty: true },
            { key: 'attributeNullMatchAll', label: t('pt.nullMatch'), kind: 'checkbox', empty: false },
            { key: 'scope', label: t('pt.reach'), kind: 'select', empty: '', options: REALM_SCOPES },
        ],
    },
    { type: 'permissionBinding', label: t('pt.binding'), fields: [] },
];

export const typeOf = (type: string): PolicyType | undefined => POLICY_TYPES.find((entry) => entry.type === type);
