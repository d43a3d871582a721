import type { Field } from '../../../shared/components/EntityForm.vue';

/** The decision strategies of a permission's definition layer (API.md §3). */
const DECISION_STRATEGIES = [
    { value: 'unanimous', label: 'unanimous (every policy passes)' },
    { value: 'affirmative', label: 'affirmative (one policy passes)' },
    { value: 'consensus', label: 'consensus (more pass than fail)' },
];

/** The permission fields an administrator edits (API.md §3). */
export const PERMISSION_FIELDS: Field[] = [
    { name: 'displayName', label: 'Display name' },
    { name: 'description', label: 'Description', type: 'textarea' },
    { name: 'decisionStrategy', label: 'Decision strategy', type: 'select', options: DECISION_STRATEGIES },
];
