import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSigningMaterial, importSigningMaterial, KeyMaterialError } from './material.js';

describe('signing key material', () => {
    it('generates ES256 (P-256) by default and RS256 (2048 bits) on request, public JWK without private parameters', async () => {
        const es = await generateSigningMaterial();
        expect(es).toMatchObject({ type: 'EC', algorithm: 'ES256', publicJwk: { kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' } });
        expect(es.publicJwk.d).toBeUndefined();
        expect(es.privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
        const rs = await generateSigningMaterial('RS256');
        expect(rs).toMatchObject({ type: 'RSA', algorithm: 'RS256', publicJwk: { kty: 'RSA', alg: 'RS256', use: 'sig' } });
        expect(createPrivateKey(rs.privatePem).asymmetricKeyDetails?.modulusLength).toBe(2048);
        expect(rs.publicJwk.d).toBeUndefined();
        // the stored halves belong together
        const signature = sign('sha256', Buffer.from('payload'), es.privatePem);
        expect(verify('sha256', Buffer.from('payload'), createPublicKey({ key: es.publicJwk, format: 'jwk' }), signature)).toBe(true);
    });

    it('imports PEM (PKCS#8, SEC1, PKCS#1) and private JWKs, deriving or checking the algorithm', () => {
        const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
        expect(importSigningMaterial(ec.privateKey.export({ format: 'pem', type: 'sec1' })).algorithm).toBe('ES256');
        expect(importSigningMaterial(ec.privateKey.export({ format: 'jwk' }), 'ES256').publicJwk.x).toBe(ec.publicKey.export({ format: 'jwk' }).x);
        expect(importSigningMaterial(rsa.privateKey.export({ format: 'pem', type: 'pkcs1' })).algorithm).toBe('RS256');
        const imported = importSigningMaterial(rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }), 'RS256');
        expect(imported.privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
        expect(imported.publicJwk.n).toBe(rsa.publicKey.export({ format: 'jwk' }).n);
    });

    it('refuses unusable material with a message that never quotes it', () => {
        const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
        const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
        const ed = generateKeyPairSync('ed25519');
        const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const cases: [unknown, string?][] = [
            ['not a key'],
            ['-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----'],
            [ec.publicKey.export({ format: 'pem', type: 'spki' })],
            [ec.publicKey.export({ format: 'jwk' })],
            [{ kty: 'EC', d: 'x' }],
            [[1, 2]],
            [42],
            [p384.privateKey.export({ format: 'pem', type: 'pkcs8' })],
            [small.privateKey.export({ format: 'pem', type: 'pkcs8' })],
            [ed.privateKey.export({ format: 'pem', type: 'pkcs8' })],
            [ec.privateKey.export({ format: 'pem', type: 'pkcs8' }), 'RS256'],
        ];
        for (const [input, algorithm] of cases) {
            let caught: unknown;
            try {
                importSigningMaterial(input, algorithm as 'RS256' | undefined);
            } catch (error) {
                caught = error;
            }
            expect(caught).toBeInstanceOf(KeyMaterialError);
            expect((caught as Error).message).not.toContain('BEGIN');
        }
    });
});
