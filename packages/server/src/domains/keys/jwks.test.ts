import { randomBytes, randomUUID } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { bootstrap } from '../../provisioning/bootstrap.js';
import { createKeyStore, type KeyStore } from '../../keys/store.js';

type Key = { id: string; use: string; algorithm: string; status: string; type: string; realmId: string; publicKey: Record<string, unknown> | null };

/** Private material in any answer: the column or member name, a PEM armour, a JWK private parameter. */
function expectNoPrivateMaterial(body: string): void {
    expect(body).not.toMatch(/"private_?key"\s*:|-----BEGIN|"d"\s*:/i);
}

describeEachDialect('keys: realm signing keys and JWKS', (dialect) => {
    let app: TestApp;
    let store: KeyStore;
    let realmId: string;
    beforeAll(async () => {
        // with SECRETS_ENCRYPTION_KEY set, signing keys are wrapped at rest like encryption keys (spec Authentication rule 15)
        app = await startTestApp(dialect, { secretsEncryptionKey: randomBytes(32).toString('hex') });
        store = createKeyStore(dialect, app.deps.secrets);
        realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'jwks-realm' } }, 201)).data.id;
    });
    afterAll(async () => app?.dispose());

    const keysOf = async (realm: string, use = 'sig') =>
        (await app.json<{ data: Key[] }>({ method: 'GET', url: `/keys?filter[realmId]=${realm}&filter[use]=${use}` }, 200)).data;
    const jwks = async (realm: string) => {
        const response = await app.request({ method: 'GET', url: `/realms/${realm}/jwks`, as: null });
        expect(response.statusCode).toBe(200);
        expect(response.headers['cache-control']).toBe('public, max-age=60');
        expectNoPrivateMaterial(response.body);
        return response.json() as JSONWebKeySet;
    };
    /** a token signed with the key's private half, verified against the realm's published JWKS */
    const verifies = async (kid: string, alg: string, realm = realmId) => {
        const privateKey = await store.privateKeyFor(app.deps.db, realm, kid);
        expect(privateKey).toBeDefined();
        const token = await new SignJWT({ realm_id: realm }).setProtectedHeader({ alg, kid }).setIssuedAt().setExpirationTime('5m').sign(privateKey!);
        try {
            await jwtVerify(token, createLocalJWKSet(await jwks(realm)));
            return true;
        } catch {
            return false;
        }
    };

    it('creates an active ES256 signing key with a realm (wrapped at rest) and publishes it', async () => {
        const key = (await keysOf(realmId)).find((candidate) => candidate.algorithm === 'ES256');
        expect(key).toMatchObject({ use: 'sig', algorithm: 'ES256', type: 'EC', status: 'active', realmId });
        expect(key!.publicKey).toMatchObject({ kty: 'EC', crv: 'P-256', kid: key!.id, alg: 'ES256', use: 'sig' });
        const row = await app.deps.db.selectFrom('auth_keys').selectAll().where('id', '=', key!.id).executeTakeFirstOrThrow();
        expect(row.private_key).toMatch(/^wrapped:v1:/);
        expect(JSON.parse(row.public_key!)).toMatchObject({ kid: key!.id });
        // the encryption key came with the realm too
        expect((await keysOf(realmId, 'enc')).length).toBe(1);

        const set = await jwks(realmId);
        expect(set.keys).toContainEqual(key!.publicKey);
        expect(await jwks('jwks-realm')).toEqual(set);
        expect(await verifies(key!.id, 'ES256')).toBe(true);
        // ES256 signs the realm's access tokens (the RS256 key sits below it)
        expect((await store.activeSigningKey(app.deps.db, realmId))?.kid).toBe(key!.id);

        const single = await app.request({ method: 'GET', url: `/realms/jwks-realm/jwks/${key!.id}`, as: null });
        expect(single.statusCode).toBe(200);
        expect(single.headers['cache-control']).toBe('public, max-age=60');
        expect(single.json()).toEqual(key!.publicKey);
    });

    /** the ID-token algorithms the realm's discovery document advertises (OIDC Discovery §3) */
    const advertised = async (realmName: string) => (await app.json<{ id_token_signing_alg_values_supported: string[] }>(
        { method: 'GET', url: `/realms/${realmName}/.well-known/openid-configuration`, as: null }, 200)).id_token_signing_alg_values_supported;
    /** an ID token of the realm, signed with `algorithm` as a client that registered it gets it */
    const idToken = (realm: { id: string; name: string }, clientId: string, algorithm: string | null) => app.deps.tokens.issueIdToken(app.deps.db, {
        subject: { id: randomUUID(), kind: 'user', realmId: realm.id, realmName: realm.name },
        clientId, sessionId: randomUUID(), authTime: new Date(), claims: {}, algorithm,
    });

    it('publishes a key of every advertised ID-token algorithm with a new realm: an ID token verifies against the JWKS fetched before it was signed', async () => {
        const name = `jwks-fresh-${randomUUID().slice(0, 8)}`;
        const id = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name } }, 201)).data.id;
        // the relying party fetches the JWKS first (OIDC Core §10.1.1), before any token exists
        const before = await jwks(name);
        const algorithms = await advertised(name);
        expect(algorithms).toEqual(expect.arrayContaining(['RS256', 'ES256']));
        for (const algorithm of algorithms) expect(before.keys.map((key) => key.alg), algorithm).toContain(algorithm);
        const clientId = randomUUID();
        for (const registered of [null, 'ES256']) {
            const token = await idToken({ id, name }, clientId, registered);
            const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(before), {
                issuer: `${app.deps.config.publicUrl.replace(/\/+$/, '')}/realms/${name}`, audience: clientId,
            });
            expect(protectedHeader.alg).toBe(registered ?? 'RS256');
        }
        // signing created nothing the relying party has not seen
        expect(await jwks(name)).toEqual(before);
    });

    it('gives the master realm its signing keys at bootstrap, once', async () => {
        const master = (await app.json<{ data: { id: string } }>({ method: 'GET', url: '/realms/master' }, 200)).data.id;
        const before = await keysOf(master);
        expect(before.map((key) => key.algorithm).sort()).toEqual(['ES256', 'RS256']);
        await bootstrap(app.deps);
        expect(await keysOf(master)).toEqual(before);
        const es = before.find((key) => key.algorithm === 'ES256')!;
        expect(await verifies(es.id, 'ES256', master)).toBe(true);
    });

    it('gives a realm that predates its advertised keys the missing ones at boot, once', async () => {
        const name = `jwks-old-${randomUUID().slice(0, 8)}`;
        const id = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name } }, 201)).data.id;
        // a realm created before every advertised key came with it: its ES256 key alone
        await app.deps.db.deleteFrom('auth_keys').where('realm_id', '=', id).where('use', '=', 'sig').where('algorithm', '!=', 'ES256').execute();
        expect((await jwks(name)).keys.map((key) => key.alg)).toEqual(['ES256']);
        await bootstrap(app.deps);
        const after = await jwks(name);
        expect(after.keys.map((key) => key.alg).sort()).toEqual([...await advertised(name)].sort());
        // below the ES256 key: access tokens keep their key
        expect((await store.activeSigningKey(app.deps.db, id))?.algorithm).toBe('ES256');
        await bootstrap(app.deps);
        expect(await jwks(name)).toEqual(after);
    });

    it('answers 404 for an unknown realm, an unknown or malformed kid, and a key of another realm', async () => {
        const master = (await jwks('master')).keys[0]!;
        for (const url of [`/realms/${randomUUID()}/jwks`, '/realms/no-such-realm/jwks', `/realms/jwks-realm/jwks/${randomUUID()}`,
            '/realms/jwks-realm/jwks/not-a-uuid', `/realms/jwks-realm/jwks/${master.kid}`]) {
            const response = await app.request({ method: 'GET', url, as: null });
            expect(response.statusCode, url).toBe(404);
        }
    });

    it('finds a private signing key by realm and kid together: another realm\'s kid selects no key of this realm', async () => {
        const otherRealm = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: `jwks-other-${randomUUID().slice(0, 8)}` } }, 201)).data.id;
        const own = (await store.activeSigningKey(app.deps.db, realmId))!;
        const foreign = (await store.activeSigningKey(app.deps.db, otherRealm))!;
        expect(await store.privateKeyFor(app.deps.db, realmId, own.kid)).toBeDefined();
        expect(await store.privateKeyFor(app.deps.db, otherRealm, foreign.kid)).toBeDefined();
        expect(await store.privateKeyFor(app.deps.db, realmId, foreign.kid)).toBeUndefined();
        expect(await store.privateKeyFor(app.deps.db, otherRealm, own.kid)).toBeUndefined();
    });

    it('drops a disabled key from the JWKS and its tokens stop verifying; re-enabling brings both back; passive keys stay published', async () => {
        const keys = await keysOf(realmId);
        const key = keys.find((candidate) => candidate.algorithm === 'ES256');
        const idKey = keys.find((candidate) => candidate.algorithm === 'RS256')!;
        await app.json({ method: 'POST', url: `/keys/${key!.id}`, payload: { status: 'disabled' } }, 200);
        expect((await jwks(realmId)).keys.map((jwk) => jwk.kid)).toEqual([idKey.id]);
        expect((await app.request({ method: 'GET', url: `/realms/${realmId}/jwks/${key!.id}`, as: null })).statusCode).toBe(404);
        expect(await store.privateKeyFor(app.deps.db, realmId, key!.id)).toBeUndefined();
        expect(await store.activeSigningKey(app.deps.db, realmId, 'ES256')).toBeUndefined();
        // the realm's only active key left signs its access tokens until the ES256 key returns
        expect((await store.activeSigningKey(app.deps.db, realmId))?.kid).toBe(idKey.id);

        await app.json({ method: 'POST', url: `/keys/${key!.id}`, payload: { status: 'active' } }, 200);
        expect((await jwks(realmId)).keys.map((jwk) => jwk.kid)).toEqual([key!.id, idKey.id]);
        expect(await verifies(key!.id, 'ES256')).toBe(true);

        // rotation: a new RS256 key takes over signing, the old one turns passive and keeps verifying
        const rs = (await app.json<{ data: Key }>({ method: 'POST', url: '/keys', payload: { realmId, algorithm: 'RS256', priority: 10 } }, 201)).data;
        expect(rs).toMatchObject({ type: 'RSA', algorithm: 'RS256', use: 'sig', status: 'active', priority: 10 });
        expect(rs.publicKey).toMatchObject({ kty: 'RSA', e: 'AQAB', kid: rs.id, alg: 'RS256', use: 'sig' });
        await app.json({ method: 'POST', url: `/keys/${key!.id}`, payload: { status: 'passive' } }, 200);
        expect((await store.activeSigningKey(app.deps.db, realmId))?.kid).toBe(rs.id);
        expect((await store.activeSigningKey(app.deps.db, realmId, 'ES256'))).toBeUndefined();
        expect((await jwks(realmId)).keys.map((jwk) => jwk.kid)).toEqual([rs.id, key!.id, idKey.id]);
        expect(await verifies(rs.id, 'RS256')).toBe(true);
        expect(await verifies(key!.id, 'ES256')).toBe(true);
        // a realm's key does not verify for another realm
        const masterJwks = createLocalJWKSet(await jwks('master'));
        const token = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: rs.id }).sign((await store.privateKeyFor(app.deps.db, realmId, rs.id))!);
        await expect(jwtVerify(token, masterJwks)).rejects.toThrow();
    });
});
