import { describe, expect, it } from 'vitest';
import { ifNoneMatchMatches } from './conditional.js';

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
    const tag = '"abc"';

    it('matches the tag, its weak form, `*` and a list naming it', () => {
        for (const field of ['"abc"', 'W/"abc"', '*', ' * ', '"x", "abc"', 'W/"x",W/"abc"', '"a,b", "abc"', ',, "abc" ,']) {
            expect(ifNoneMatchMatches(field, tag), field).toBe(true);
        }
        expect(ifNoneMatchMatches(['"x"', '"abc"'], tag)).toBe(true);
    });

    it('does not match another tag, an unquoted or malformed field, or no field', () => {
        for (const field of ['"abd"', 'abc', 'W/abc', '"abc', '"x" "abc"', '*, "abc"', '', 'w/"abc"']) {
            expect(ifNoneMatchMatches(field, tag), field).toBe(false);
        }
        expect(ifNoneMatchMatches(undefined, tag)).toBe(false);
    });
});
