import { describe, expect, it } from 'vitest';
import { createRememberedVerifications } from './remembered.js';

describe('remembered verifications', () => {
    it('knows a remembered pair only, bound to both its stored form and its presented value', () => {
        const remembered = createRememberedVerifications();
        expect(remembered.has('stored-1', 'secret')).toBe(false);
        remembered.add('stored-1', 'secret');
        expect(remembered.has('stored-1', 'secret')).toBe(true);
        expect(remembered.has('stored-2', 'secret')).toBe(false);
        expect(remembered.has('stored-1', 'secret2')).toBe(false);
        // the separator keeps the two parts apart: moving a character across them is another pair
        expect(remembered.has('stored-1s', 'ecret')).toBe(false);
    });

    it('forgets the oldest pair once full', () => {
        const remembered = createRememberedVerifications(2);
        remembered.add('a', '1');
        remembered.add('b', '2');
        remembered.add('c', '3');
        expect(remembered.has('a', '1')).toBe(false);
        expect(remembered.has('b', '2')).toBe(true);
        expect(remembered.has('c', '3')).toBe(true);
    });

    it('keys digests per process: another instance knows nothing of this one', () => {
        const first = createRememberedVerifications();
        first.add('stored', 'secret');
        expect(createRememberedVerifications().has('stored', 'secret')).toBe(false);
    });
});
