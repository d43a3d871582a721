import { describe, expect, it } from 'vitest';
import { decodeBasicRfc6749, decodeBasicRfc7617, isBasicScheme } from './basic-credentials.js';

const basic = (value: string) => `Basic ${Buffer.from(value, 'utf8').toString('base64')}`;

describe('Basic credentials: the two RFC encodings', () => {
    it('RFC 7617 takes name and secret verbatim (no percent-decoding)', () => {
        expect(decodeBasicRfc7617(basic('admin:p%41ss+word'))).toEqual({ name: 'admin', secret: 'p%41ss+word' });
        expect(decodeBasicRfc7617(basic('admin:a:b'))).toEqual({ name: 'admin', secret: 'a:b' });
        expect(decodeBasicRfc7617(basic(':secret'))).toBeNull();
        expect(decodeBasicRfc7617(basic('ad\u0000min:secret'))).toBeNull();
        expect(decodeBasicRfc7617('Basic !!!')).toBeNull();
        expect(decodeBasicRfc7617('Bearer abc')).toBeNull();
    });

    it('RFC 6749 §2.3.1 percent-decodes each form-urlencoded part', () => {
        expect(decodeBasicRfc6749(basic('my%20client:p%41ss+word'))).toEqual({ id: 'my client', secret: 'pAss word' });
        expect(decodeBasicRfc6749(basic('client:%E0%A4%A'))).toBeNull();
        expect(decodeBasicRfc6749(basic('nocolon'))).toBeNull();
        expect(decodeBasicRfc6749('Basic a.b')).toBeNull();
    });

    it('recognizes the scheme case-insensitively', () => {
        expect(isBasicScheme('basic abc')).toBe(true);
        expect(isBasicScheme('BASIC abc')).toBe(true);
        expect(isBasicScheme('Bearer abc')).toBe(false);
        expect(isBasicScheme(undefined)).toBe(false);
    });
});
