import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';
import { globalId, insertUser, type FixtureActor } from '../../test/grant-fixtures.js';
import { generateSigningMaterial } from '../keys/material.js';
import { signingKeyColumns } from '../keys/store.js';
import { insertKey } from '../storage/keys.js';

type TokenAnswer = { access_token: string };

/**
 * A deleted signing key stays dead. A realm administrator of realm B asking for a
 * new key under the kid of a key deleted in realm C must not revive C's tokens, nor make this
 * process sign B's tokens with C's deleted private key.
 */
describeEachDialect('a deleted signing key stays dead', (dialect) => {
    const app = useTestApp(dialect);
    let realmB: { id: string; name: string };
    let realmC: { id: string; name: string };
    let adminOfB: FixtureActor;
    beforeAll(async () => {
        realmB = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'reuse-b' } }, 201)).data;
        realmC = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'reuse-c' } }, 201)).data;
        adminOfB = await insertUser(app, realmB.id);
        await app.json({ method: 'POST', url: '/user-roles', payload: { userId: adminOfB.id, roleId: await globalId(app, 'auth_roles', 'realm_admin') } }, 201);
    });

    const login = async (realm: { id: string }, username: string): Promise<TokenAnswer> => {
        const response = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'password', username, password: 'user-password', realm_id: realm.id }, as: null });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as TokenAnswer;
    };
    const me = (accessToken: string) => app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${accessToken}` });
    const introspect = async (token: string) =>
        (await app.request({ method: 'POST', url: '/token/introspect', payload: { token } })).json() as { active: boolean };
    const signedBy = async (token: string, jwk: JsonWebKey) =>
        compactVerify(token, createPublicKey({ key: jwk, format: 'jwk' })).then(() => true, () => false);

    /** a user of C with a live token, and C's active key deleted: the token is C's, signed by a dead key */
    const deadKeyOfC = async (name: string) => {
        await app.json({ method: 'POST', url: '/users', payload: { name, password: 'user-password', realmId: realmC.id } }, 201);
        const token = (await login(realmC, name)).access_token;
        const kid = decodeProtectedHeader(token).kid!;
        const jwk = (await app.json<{ data: { publicKey: JsonWebKey } }>({ method: 'GET', url: `/keys/${kid}` }, 200)).data.publicKey;
        expect((await me(token)).statusCode).toBe(200);
        await app.json({ method: 'DELETE', url: `/keys/${kid}` }, 200);
        expect((await me(token)).json()).toMatchObject({ code: 'inactive_token' });
        return { token, kid, jwk };
    };

    it("refuses a realm administrator's PUT of a deleted key's id, on every mount, and C's old token stays dead", async () => {
        const dead = await deadKeyOfC('reuse-user-1');
        const put = await app.request({ method: 'PUT', url: `/keys/${dead.kid}`, payload: {}, as: adminOfB.auth });
        expect(put.statusCode, put.body).toBe(409);
        expect(put.json()).toMatchObject({ code: 'entity_conflict' });
        // nor as the administrator, nor on the nested mount of C itself
        expect((await app.request({ method: 'PUT', url: `/keys/${dead.kid}`, payload: { realmId: realmB.id } })).statusCode).toBe(409);
        expect((await app.request({ method: 'PUT', url: `/realms/${realmC.name}/keys/${dead.kid}`, payload: {} })).statusCode).toBe(409);
        expect(await app.deps.db.selectFrom('auth_keys').select('id').where('id', '=', dead.kid).execute()).toEqual([]);

        const stillDead = await me(dead.token);
        expect(stillDead.statusCode).toBe(401);
        expect(stillDead.json()).toMatchObject({ code: 'inactive_token' });
        expect(await introspect(dead.token)).toMatchObject({ active: false });
        // B's new tokens are signed by B's own key, never C's deleted material
        await app.json({ method: 'POST', url: '/users', payload: { name: 'reuse-user-b', password: 'user-password', realmId: realmB.id } }, 201);
        const tokenOfB = (await login(realmB, 'reuse-user-b')).access_token;
        expect(decodeProtectedHeader(tokenOfB).kid).not.toBe(dead.kid);
        expect(await signedBy(tokenOfB, dead.jwk)).toBe(false);
        expect((await me(tokenOfB)).statusCode).toBe(200);
    });

    it('never lets a row re-created under an old kid (its tombstone pruned) vouch with, or sign with, the old material', async () => {
        const dead = await deadKeyOfC('reuse-user-2');
        // the tombstone pruned (every token of the key long expired, say): the id can be created again, here in B at top priority
        await app.deps.db.deleteFrom('auth_key_tombstones').where('id', '=', dead.kid).execute();
        const material = await generateSigningMaterial();
        const columns = signingKeyColumns(app.deps.secrets, material, dead.kid);
        await insertKey(app.deps.db, dialect, {
            id: dead.kid, type: columns.type, use: 'sig', algorithm: columns.algorithm, status: 'active', priority: 1000,
            publicKey: columns.public_key, privateKey: columns.private_key, realmId: realmB.id,
        });
        // C's token (its verification remembered by this process) is not revived by B's row
        const revived = await me(dead.token);
        expect(revived.statusCode).toBe(401);
        expect(revived.json()).toMatchObject({ code: 'invalid_token' });
        expect(await introspect(dead.token)).toMatchObject({ active: false });
        // B's token under the old kid is signed with the new row's material, not C's remembered key
        await app.json({ method: 'POST', url: '/users', payload: { name: 'reuse-user-b2', password: 'user-password', realmId: realmB.id } }, 201);
        const tokenOfB = (await login(realmB, 'reuse-user-b2')).access_token;
        expect(decodeProtectedHeader(tokenOfB).kid).toBe(dead.kid);
        expect(await signedBy(tokenOfB, dead.jwk)).toBe(false);
        expect(await signedBy(tokenOfB, material.publicJwk)).toBe(true);
        expect((await me(tokenOfB)).statusCode).toBe(200);
        await app.deps.db.deleteFrom('auth_keys').where('id', '=', dead.kid).execute();
    });
});
