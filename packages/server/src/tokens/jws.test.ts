import { generateKeyPairSync } from 'node:crypto';
import { compactVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { decodeJws, signJws, verifyJws } from './jws.js';

describe('compact JWS with node:crypto', () => {
    const keys = {
        ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
        RS256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
    } as const;

    for (const algorithm of ['ES256', 'RS256'] as const) {
        it(`${algorithm}: what we sign jose verifies, and what jose signs we verify`, async () => {
            const { privateKey, publicKey } = keys[algorithm];
            const token = signJws(algorithm, 'kid-1', { sub: 'a', n: 1 }, privateKey);
            const verified = await compactVerify(token, publicKey);
            expect(verified.protectedHeader).toEqual({ alg: algorithm, typ: 'JWT', kid: 'kid-1' });
            expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual({ sub: 'a', n: 1 });
            const foreign = await new SignJWT({ sub: 'b' }).setProtectedHeader({ alg: algorithm, kid: 'kid-2' }).sign(privateKey);
            const decoded = decodeJws(foreign)!;
            expect(decoded.payload).toEqual({ sub: 'b' });
            expect(verifyJws(algorithm, publicKey, decoded)).toBe(true);
        });
    }

    it('refuses a tampered payload, a header naming another algorithm, and malformed input', () => {
        const { privateKey, publicKey } = keys.ES256;
        const [header, , signature] = signJws('ES256', 'k', { sub: 'a' }, privateKey).split('.');
        const tampered = `${header}.${Buffer.from('{"sub":"b"}').toString('base64url')}.${signature}`;
        expect(verifyJws('ES256', publicKey, decodeJws(tampered)!)).toBe(false);
        // RFC 8725 §3.1: the key decides the algorithm
        const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`;
        expect(verifyJws('ES256', publicKey, decodeJws(none)!)).toBe(false);
        for (const input of ['', 'a.b', 'a.b.c.d', '!!.e30.e30', 'e30.bm90IGpzb24.e30', 'WzFd.e30.e30']) expect(decodeJws(input)).toBeNull();
    });
});
