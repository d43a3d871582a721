import { describe, expect, it } from 'vitest';
import { randomToken, sha256Hex } from './digests.js';

describe('secrets the server hands out', () => {
    it('device codes carry 256 bits; digests are SHA-256 hex', () => {
        expect(Buffer.from(randomToken(), 'base64url')).toHaveLength(32);
        expect(randomToken()).not.toBe(randomToken());
        expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    });
});
