import { describe, expect, it } from 'vitest';
import { escapeFilterValue, fillFilter } from './ldap-filter.js';

describe('LDAP filter templates (RFC 4515 §3, spec Authentication 19)', () => {
    it('escapes the characters that would change a filter', () => {
        expect(escapeFilterValue('*)(uid=*')).toBe('\\2a\\29\\28uid=\\2a');
        expect(escapeFilterValue('a\\b\u0000c')).toBe('a\\5cb\\00c');
        expect(escapeFilterValue('jürgen o\'brien')).toBe('jürgen o\'brien');
    });

    it('inserts every value of a template as a literal and empties unknown placeholders', () => {
        expect(fillFilter('(&(objectClass=person)(uid={{username}}))', { username: '*' })).toBe('(&(objectClass=person)(uid=\\2a))');
        expect(fillFilter('(member={{ dn }})', { dn: 'uid=a)(x,dc=example' })).toBe('(member=uid=a\\29\\28x,dc=example)');
        expect(fillFilter('(uid={{other}})', {})).toBe('(uid=)');
    });
});
