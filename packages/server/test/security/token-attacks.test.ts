import { createHmac, createPublicKey, randomUUID, type JsonWebKey } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { login, type Login } from '../sessions.js';

type Jwk = JsonWebKey & { kid: string; alg: string };

const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const partsOf = (token: string) => token.split('.') as [string, string, string];

/** A compact JWS with any header, signed by `sign` over the signing input (RFC 7515 §7.1). */
function compact(header: Record<string, unknown>, payload: Record<string, unknown>, sign: (input: string) => string): string {
    const input = `${segment(header)}.${segment(payload)}`;
    return `${input}.${sign(input)}`;
}

const hmac = (secret: string) => (input: string) => createHmac('sha256', secret).update(input).digest('base64url');

/**
 * Token attacks as tests: the forgeries an intruder tries on a JWT bearer (RFC 8725
 * §2, §3.1–3.2, §3.10), each refused at `/users/@me` (401) and inactive at introspection
 * (RFC 7662 §2.2), next to the untouched token that still works.
 */
describeEachDialect('token attacks (RFC 8725)', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: { id: string; name: string };
    let realmB: { id: string; name: string };
    let victim: Login;
    let other: { id: string };
    let now: number;

    const createUser = async (realmId: string, name: string) =>
        (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name, password: 'user-password', realmId } }, 201)).data;
    const jwksOf = async (realmId: string) => (await app.json<{ keys: Jwk[] }>({ method: 'GET', url: `/realms/${realmId}/jwks`, as: null }, 200)).keys;
    const me = (token: string) => app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${token}` });
    const introspect = async (token: string) =>
        (await app.json<{ active: boolean }>({ method: 'POST', url: '/token/introspect', payload: { token } }, 200));
    /**
     * The attack answers 401 with `code` at the bearer route and `{active:false}` at introspection:
     * a bare object for a token this server did not sign; one signed by a realm key (the spec's
     * Introspection response: "an inactive token still names its subject and reports no grants")
     * with no grant.
     */
    const refused = async (label: string, token: string, code = 'invalid_token', signedHere = false) => {
        const response = await me(token);
        expect(response.statusCode, `${label}: ${response.body}`).toBe(401);
        expect(response.json(), label).toMatchObject({ code });
        const inactive = await introspect(token) as { active: boolean; permissions?: unknown[] };
        if (signedHere) expect(inactive, label).toMatchObject({ active: false, permissions: [] });
        else expect(inactive, label).toEqual({ active: false });
    };
    /** a token signed with the realm's own active key (what only a key leak or the server could make) */
    const signedByRealm = async (realmId: string, claims: JWTPayload) => {
        const active = await app.deps.keys.activeSigningKey(app.deps.db, realmId);
        const key = await app.deps.keys.privateKeyFor(app.deps.db, realmId, active!.kid);
        // typed as the server types what it signs (RFC 9068 §2.1: an access token is at+jwt)
        return new SignJWT(claims).setProtectedHeader({ alg: active!.algorithm, kid: active!.kid, typ: claims.kind === 'access_token' ? 'at+jwt' : 'JWT' }).sign(key!);
    };

    beforeAll(async () => {
        realmA = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'attack-a' } }, 201)).data;
        realmB = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'attack-b' } }, 201)).data;
        await createUser(realmA.id, 'victim');
        other = await createUser(realmA.id, 'bystander');
        await createUser(realmB.id, 'outsider');
        victim = await login(app, realmA.id, 'victim', 'user-password');
        now = Math.floor(Date.now() / 1000);
    });

    it('the untouched token works (the control every attack is measured against)', async () => {
        expect((await me(victim.accessToken)).statusCode).toBe(200);
        expect(await introspect(victim.accessToken)).toMatchObject({ active: true, sub: decodeJwt(victim.accessToken).sub });
    });

    it('refuses alg:none and HS256 keyed with the realm public key (PEM and JWK, RFC 8725 §2.1, §3.1)', async () => {
        const [, payloadPart] = partsOf(victim.accessToken);
        const payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString()) as Record<string, unknown>;
        const { kid } = decodeProtectedHeader(victim.accessToken);
        for (const alg of ['none', 'None', 'NONE']) {
            await refused(`alg ${alg}`, `${segment({ alg, typ: 'JWT', kid })}.${payloadPart}.`);
            await refused(`alg ${alg} with the old signature`, `${segment({ alg, typ: 'JWT', kid })}.${payloadPart}.${partsOf(victim.accessToken)[2]}`);
        }
        // one client with openid makes the realm's RS256 ID-token key public too: both key types are tried
        await app.json({ method: 'POST', url: '/clients', payload: { name: 'attack-rp', realmId: realmA.id } }, 201);
        await login(app, realmA.id, 'victim', 'user-password', { client_id: 'attack-rp', scope: 'openid' });
        const keys = await jwksOf(realmA.id);
        expect(new Set(keys.map((key) => key.alg))).toEqual(new Set(['ES256', 'RS256']));
        for (const key of keys) {
            const pem = createPublicKey({ key, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
            const jwkText = JSON.stringify(key);
            for (const [form, secret] of [['PEM', pem], ['PEM without newline', pem.trimEnd()], ['JWK', jwkText], ['JWK x', String(key.x ?? key.n)]] as const) {
                await refused(`HS256 with the ${key.alg} ${form}`, compact({ alg: 'HS256', typ: 'JWT', kid: key.kid }, payload, hmac(secret)));
            }
        }
    });

    it("refuses a kid swapped to another realm's key, with the old signature or signed by that key", async () => {
        const [, payloadPart, signature] = partsOf(victim.accessToken);
        const keyOfB = (await jwksOf(realmB.id)).find((key) => key.alg === 'ES256')!;
        await refused('kid of realm B', `${segment({ alg: 'ES256', typ: 'JWT', kid: keyOfB.kid })}.${payloadPart}.${signature}`);
        const claims = decodeJwt(victim.accessToken);
        await refused("realm A's claims signed by realm B's key", await signedByRealm(realmB.id, { ...claims, iat: now, exp: now + 300 }));
        await refused("realm B's key claiming realm B for A's subject", await signedByRealm(realmB.id, { ...claims, realm_id: realmB.id, realm_name: realmB.name, iat: now, exp: now + 300 }), 'invalid_token', true);
        await refused('an unknown kid', `${segment({ alg: 'ES256', typ: 'JWT', kid: randomUUID() })}.${payloadPart}.${signature}`);
    });

    it('refuses tampered claims under the original signature', async () => {
        const [headerPart, , signature] = partsOf(victim.accessToken);
        const claims = decodeJwt(victim.accessToken);
        const tampered: [string, JWTPayload][] = [
            ['sub', { sub: other.id }], ['realm_id', { realm_id: realmB.id }], ['scope', { scope: 'global openid identity email' }],
            ['exp', { exp: (claims.exp ?? now) + 86_400 }], ['session_id', { session_id: randomUUID() }], ['kind', { kind: 'refresh_token' }],
            ['sub_kind', { sub_kind: 'client' }], ['an extra claim', { admin: true }],
        ];
        for (const [label, change] of tampered) await refused(`tampered ${label}`, `${headerPart}.${segment({ ...claims, ...change })}.${signature}`);
    });

    it("refuses a token vouched for by an embedded jwk or a jku pointing elsewhere (RFC 8725 §3.10)", async () => {
        const attacker = await generateKeyPair('ES256');
        const jwk = await exportJWK(attacker.publicKey);
        const { kid } = decodeProtectedHeader(victim.accessToken);
        const claims = decodeJwt(victim.accessToken);
        const headers: [string, Record<string, unknown>][] = [
            ['embedded jwk, realm kid', { jwk, kid }], ['embedded jwk, no kid', { jwk }], ['embedded jwk, its own kid', { jwk: { ...jwk, kid: 'attacker' }, kid: 'attacker' }],
            ['jku elsewhere, realm kid', { jku: 'https://attacker.example/jwks.json', kid }], ['jku elsewhere, no kid', { jku: 'https://attacker.example/jwks.json' }],
            ['x5u elsewhere', { x5u: 'https://attacker.example/cert.pem', kid }],
        ];
        for (const [label, header] of headers) {
            const token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', ...header }).sign(attacker.privateKey);
            await refused(label, token);
        }
    });

    it('refuses a refresh token and an ID token used as a bearer', async () => {
        const session = await login(app, realmA.id, 'victim', 'user-password', { client_id: 'attack-rp', scope: 'openid' });
        const answer = await app.json<{ id_token: string }>({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: 'refresh_token', refresh_token: session.refreshToken, client_id: 'attack-rp' },
        }, 200);
        expect(answer.id_token).toBeTypeOf('string');
        const fresh = await login(app, realmA.id, 'victim', 'user-password');
        const refresh = await me(fresh.refreshToken);
        expect(refresh.statusCode, refresh.body).toBe(401);
        expect(refresh.json()).toMatchObject({ code: 'invalid_token' });
        await refused('an ID token as a bearer', answer.id_token);
        // the refresh token still refreshes: using it as a bearer burnt nothing
        expect((await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: fresh.refreshToken } })).statusCode).toBe(200);
    });

    it('refuses the same forgeries of a refresh token at the refresh grant, and the real one still refreshes', async () => {
        const session = await login(app, realmA.id, 'victim', 'user-password');
        const [headerPart, payloadPart, signature] = partsOf(session.refreshToken);
        const claims = decodeJwt(session.refreshToken);
        const { kid } = decodeProtectedHeader(session.refreshToken);
        const key = (await jwksOf(realmA.id)).find((candidate) => candidate.kid === kid)!;
        const pem = createPublicKey({ key, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
        const attacker = await generateKeyPair('ES256');
        const forgeries: [string, string][] = [
            ['alg none', `${segment({ alg: 'none', typ: 'JWT', kid })}.${payloadPart}.`],
            ['HS256 with the public PEM', compact({ alg: 'HS256', typ: 'JWT', kid }, claims, hmac(pem))],
            ['HS256 with the public JWK', compact({ alg: 'HS256', typ: 'JWT', kid }, claims, hmac(JSON.stringify(key)))],
            ['tampered jti', `${headerPart}.${segment({ ...claims, jti: randomUUID() })}.${signature}`],
            ['tampered exp', `${headerPart}.${segment({ ...claims, exp: (claims.exp ?? now) + 86_400 })}.${signature}`],
            ['tampered sub', `${headerPart}.${segment({ ...claims, sub: other.id })}.${signature}`],
            ['embedded jwk', await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, jwk: await exportJWK(attacker.publicKey) }).sign(attacker.privateKey)],
            ['an access token', session.accessToken],
        ];
        for (const [label, token] of forgeries) {
            const response = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: token } });
            expect(response.statusCode, `${label}: ${response.body}`).toBe(400);
            expect(response.json(), label).toMatchObject({ error: 'invalid_grant' });
        }
        // no forgery burnt the real token nor ended its session
        expect((await me(session.accessToken)).statusCode).toBe(200);
        const refreshed = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: session.refreshToken } });
        expect(refreshed.statusCode, refreshed.body).toBe(200);
    });

    it('refuses an expired token, one of a deactivated user, and one of a key deleted then re-created under its kid', async () => {
        const claims = decodeJwt(victim.accessToken);
        await refused('expired', await signedByRealm(realmA.id, { ...claims, iat: now - 600, exp: now - 1 }), 'expired_token', true);

        const leaver = await createUser(realmA.id, 'attack-leaver');
        const leaving = await login(app, realmA.id, 'attack-leaver', 'user-password');
        expect((await me(leaving.accessToken)).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/users/${leaver.id}`, payload: { active: false } }, 200);
        await refused('deactivated user', leaving.accessToken, 'inactive_token', true);

        const user = await createUser(realmB.id, 'attack-keyholder');
        const held = await login(app, realmB.id, 'attack-keyholder', 'user-password');
        const { kid } = decodeProtectedHeader(held.accessToken);
        await app.json({ method: 'DELETE', url: `/keys/${kid}?force=true` }, 200);
        await refused('deleted key', held.accessToken, 'inactive_token', true);
        for (const [url, payload] of [[`/keys/${kid}`, { realmId: realmA.id }], [`/keys/${kid}`, { realmId: realmB.id }], [`/realms/${realmB.name}/keys/${kid}`, {}]] as const) {
            const recreated = await app.request({ method: 'PUT', url, payload });
            expect(recreated.statusCode, `${url}: ${recreated.body}`).toBe(409);
        }
        await refused('deleted key after re-create attempts', held.accessToken, 'inactive_token', true);
        expect(decodeJwt(held.accessToken).sub).toBe(user.id);
    });
});
