import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { ErrorCode } from '@realmgate/core';
import { describe, expect, it } from 'vitest';
import { verifyAccessToken } from './jwt.js';

/* Local verification (spec Authentication 4) with real keys: what is refused before any key fetch, and after. */

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const NOW = 1_800_000_000;

function token(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject = privateKey): string {
    const input = `${encode({ alg: 'ES256', typ: 'JWT', ...header })}.${encode(claims)}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

const kid = randomUUID();
const realmId = randomUUID();
const claims = {
    iss: 'http://localhost:3000/realms/acme', sub: randomUUID(), sub_kind: 'user', kind: 'access_token',
    realm_id: realmId, realm_name: 'acme', scope: 'global', exp: NOW + 60, iat: NOW,
};

function keys() {
    const fetched: string[] = [];
    return {
        fetched,
        keyOf: async (realm: string, id: string) => {
            fetched.push(`${realm}/${id}`);
            return { key: publicKey, alg: 'ES256' };
        },
    };
}

const refusal = async (promise: Promise<unknown>) => promise.then(() => {
    throw new Error('expected a refusal');
}, (error: { statusCode: number; code: string; message: string }) => error);

describe('verifyAccessToken', () => {
    it('accepts a token signed by the key of its realm, fetched by the realm and kid', async () => {
        const { fetched, keyOf } = keys();
        expect(await verifyAccessToken(token({ kid }, claims), keyOf, NOW)).toMatchObject({ sub: claims.sub, realm_id: realmId });
        expect(fetched).toEqual([`${realmId}/${kid}`]);
    });

    it('refuses a kid that is not a UUID and a token without realm_id before fetching any key', async () => {
        const { fetched, keyOf } = keys();
        expect(await refusal(verifyAccessToken(token({ kid: 'default' }, claims), keyOf, NOW))).toMatchObject({ statusCode: 401, code: ErrorCode.INVALID_TOKEN });
        const { realm_id: _dropped, ...realmless } = claims;
        expect(await refusal(verifyAccessToken(token({ kid }, realmless), keyOf, NOW))).toMatchObject({ statusCode: 401 });
        expect(fetched).toEqual([]);
    });

    it('refuses a bad signature, an algorithm other than the key\'s, another kind and an expired token', async () => {
        const { keyOf } = keys();
        const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
        expect((await refusal(verifyAccessToken(token({ kid }, claims, other), keyOf, NOW))).message).toContain('signature');
        expect((await refusal(verifyAccessToken(token({ kid, alg: 'RS256' }, claims), keyOf, NOW))).message).toContain('algorithm');
        expect((await refusal(verifyAccessToken(token({ kid, alg: 'none' }, claims), keyOf, NOW))).message).toContain('algorithm');
        expect((await refusal(verifyAccessToken(token({ kid }, { ...claims, kind: 'refresh_token' }), keyOf, NOW))).message).toContain('access token');
        expect(await refusal(verifyAccessToken(token({ kid }, claims), keyOf, NOW + 61))).toMatchObject({ code: ErrorCode.EXPIRED_TOKEN });
        expect(await refusal(verifyAccessToken('a.b', keyOf, NOW))).toMatchObject({ statusCode: 401 });
    });
});
