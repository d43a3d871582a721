import { issue, validationFailed } from '../../errors/app-error.js';
import type { ResourceDefinition } from './context.js';

/**
 * Characters a name must not hold: controls (C0, DEL, C1), the bidirectional formatting
 * characters (U+202A–U+202E embeddings and overrides, U+2066–U+2069 isolates, U+200E/U+200F
 * marks, U+061C) and the invisible ones (U+200B–U+200D, U+2060, U+FEFF). Each lets two names that
 * look alike differ, or one name display as another (Unicode TR #36 §2, TR #39 §3).
 */
const FORBIDDEN_IN_NAMES = /[\p{Cc}\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/u;

/**
 * The body with its `name` in Unicode Normalization Form C, so a name is stored, compared and
 * unique in one form whatever form a client sent (UAX #15; a name that differs only by
 * normalisation is the same name and conflicts, 409). A name with a forbidden character answers
 * 400 with an issue before anything reads it.
 */
export function withNormalisedName<T extends Record<string, unknown>>(definition: ResourceDefinition, input: T): T {
    const name = input.name;
    if (typeof name !== 'string' || !definition.fields.some((field) => field.name === 'name' && field.type === 'string')) return input;
    if (FORBIDDEN_IN_NAMES.test(name)) {
        throw validationFailed([issue(['name'], 'invalid_character', 'must not contain control, bidirectional formatting or zero-width characters')]);
    }
    const normalised = name.normalize('NFC');
    return normalised === name ? input : { ...input, name: normalised };
}
