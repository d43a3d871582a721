import type { FieldSpec } from './resource/spec.js';

/** Field shapes several resources share (API.md §3). */
/**
 * A name must stay addressable as a path segment: no leading `@` (reserved, spec facets), no `/`,
 * no leading or trailing whitespace (MariaDB's PAD SPACE collations would equate "a" and "a ").
 */
const ADDRESSABLE_NAME = '^[^@/\\s]([^/]*[^/\\s])?$';

export const nameField = (maxLength = 128, pattern: string = ADDRESSABLE_NAME): FieldSpec => ({
    name: 'name', column: 'name', type: 'string', maxLength, create: 'required', update: true, pattern,
});
export const displayNameField: FieldSpec = { name: 'displayName', column: 'display_name', type: 'string', nullable: true, maxLength: 255, create: 'optional', update: true };
export const descriptionField: FieldSpec = { name: 'description', column: 'description', type: 'string', nullable: true, maxLength: 4096, create: 'optional', update: true };
export const builtInField: FieldSpec = { name: 'builtIn', column: 'built_in', type: 'boolean', create: false, update: false, default: false };
export const foreignKey = (name: string, column: string, options: Partial<FieldSpec> = {}): FieldSpec => ({
    name, column, type: 'uuid', create: 'required', update: false, ...options,
});
