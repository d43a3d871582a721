import { describe, expect, it } from 'vitest';
import { checkDpopProof, dpopTargetUri, jwkThumbprintInput, type DpopProofExpectation } from './dpop.js';

describe('DPoP proof rules (RFC 9449 §4.3)', () => {
    const jwk = { kty: 'EC', crv: 'P-256', x: 'l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs', y: '9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA' };
    const header = { typ: 'dpop+jwt', alg: 'ES256', jwk };
    const claims = { jti: 'e1j3V_bKic8-LAEB', htm: 'POST', htu: 'https://server.example.com/token', iat: 1562262616 };
    const expected: DpopProofExpectation = { method: 'POST', uris: ['https://server.example.com/token'], nowSeconds: 1562262616 };

    it('accepts the RFC\'s example proof and answers its key, jti and iat', () => {
        expect(checkDpopProof(header, claims, expected)).toMatchObject({ ok: true, alg: 'ES256', jwk, jti: claims.jti, iat: claims.iat, nonce: null });
    });

    it('refuses each broken rule with its reason', () => {
        const refused = (h: Record<string, unknown>, c: Record<string, unknown>, e = expected) => {
            const result = checkDpopProof(h, c, e);
            return result.ok ? null : result.reason;
        };
        expect(refused({ ...header, typ: 'JWT' }, claims)).toMatch(/typ/);
        for (const alg of ['none', 'HS256', 'ES512']) expect(refused({ ...header, alg }, claims)).toMatch(/alg/);
        expect(refused({ ...header, jwk: { ...jwk, d: 'x' } }, claims)).toMatch(/public key/);
        expect(refused({ ...header, alg: 'RS256' }, claims)).toMatch(/not a key for RS256/);
        expect(refused(header, { ...claims, jti: undefined })).toMatch(/jti/);
        expect(refused(header, { ...claims, htm: 'GET' })).toMatch(/htm/);
        expect(refused(header, { ...claims, htu: 'https://server.example.com/token/introspect' })).toMatch(/htu/);
        expect(refused(header, { ...claims, iat: claims.iat - 61 })).toMatch(/iat/);
        expect(refused(header, { ...claims, iat: claims.iat + 61 })).toMatch(/iat/);
        expect(refused(header, claims, { ...expected, accessTokenHash: 'abc' })).toMatch(/ath/);
        expect(refused(header, { ...claims, nonce: 5 })).toMatch(/nonce/);
    });

    it('normalises htu: no query or fragment, scheme and host case, default port (RFC 3986 §6.2.2, §6.2.3)', () => {
        expect(dpopTargetUri('HTTPS://Server.Example.COM:443/token?x=1#y')).toBe('https://server.example.com/token');
        expect(dpopTargetUri('http://server.example.com:8080')).toBe('http://server.example.com:8080/');
        expect(dpopTargetUri('urn:example')).toBeNull();
        expect(dpopTargetUri('/token')).toBeNull();
    });

    it('builds the RFC 7638 thumbprint input from the required members in order', () => {
        expect(jwkThumbprintInput({ ...jwk, kid: 'ignored' })).toBe(`{"crv":"P-256","kty":"EC","x":"${jwk.x}","y":"${jwk.y}"}`);
        expect(jwkThumbprintInput({ kty: 'RSA', n: 'n1', e: 'AQAB', alg: 'RS256' })).toBe('{"e":"AQAB","kty":"RSA","n":"n1"}');
        expect(jwkThumbprintInput({ kty: 'OKP', crv: 'Ed25519', x: 'xx' })).toBe('{"crv":"Ed25519","kty":"OKP","x":"xx"}');
        expect(jwkThumbprintInput({ kty: 'oct', k: 'secret' })).toBeNull();
    });
});
