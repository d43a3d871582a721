import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { insertAuthorizationCode, pkcePair, type CodeFixture } from '../../../test/authorization-codes.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createClient, createUser } from '../../../test/identities.js';
import { login, probe, refresh } from '../../../test/sessions.js';
import { fromDbDate } from '../../db/values.js';

type TokenAnswer = { access_token: string; refresh_token?: string; id_token?: string; scope: string; token_type: string };
const SPA_CB = 'https://spa.example.com/cb';
const WEB_CB = 'https://web.example.com/cb';

describeEachDialect('POST /token grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6)', (dialect) => {
    const app = useTestApp(dialect);
    let realmId: string;
    let spa: { id: string };
    let web: Awaited<ReturnType<typeof createClient>>;
    let alice: Awaited<ReturnType<typeof createUser>>;
    beforeAll(async () => {
        realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'code-realm' } }, 201)).data.id;
        // a public client: created without a secret
        spa = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'spa', realmId, redirectUri: SPA_CB } }, 201)).data;
        web = await createClient(app, realmId, 'web', { redirectUri: WEB_CB });
        alice = await createUser(app, realmId, 'alice');
    });

    /** a browser-or-bearer session of a user, as POST /authorize binds a code to it */
    const signIn = async (user = alice) => (await login(app, realmId, user.name, user.password)).sessionId;
    const mint = async (overrides: Partial<CodeFixture> = {}) => {
        const pkce = pkcePair();
        const fixture: CodeFixture = {
            realmId, clientId: spa.id, userId: alice.id, sessionId: overrides.sessionId ?? await signIn(), redirectUri: SPA_CB,
            scope: 'openid', codeChallenge: pkce.challenge, ...overrides,
        };
        return { code: await insertAuthorizationCode(app, fixture), verifier: pkce.verifier, fixture };
    };
    const redeem = (params: Record<string, string>, authorization?: string) => app.request({
        method: 'POST', url: '/token', as: null, headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
        payload: new URLSearchParams({ grant_type: 'authorization_code', ...params }).toString(),
    });
    const publicRedeem = (code: string, verifier: string | undefined, extra: Record<string, string> = {}) =>
        redeem({ code, client_id: spa.id, redirect_uri: SPA_CB, ...(verifier === undefined ? {} : { code_verifier: verifier }), ...extra });
    const expectInvalidGrant = (response: Awaited<ReturnType<typeof redeem>>, error = 'invalid_grant') => {
        expect(response.statusCode, response.body).toBe(error === 'invalid_client' ? 401 : 400);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toMatchObject({ error, code: error });
    };

    it('redeems a public client\'s code with its S256 verifier into an application session under the signing-in session', async () => {
        const authTime = new Date(Date.now() - 60_000);
        const { code, verifier, fixture } = await mint({ authTime, scope: 'openid profile' });
        const response = await publicRedeem(code, verifier);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('no-store');
        const answer = response.json() as TokenAnswer;
        expect(answer).toMatchObject({ token_type: 'Bearer', scope: 'openid profile', refresh_token: expect.any(String), id_token: expect.any(String) });
        const access = decodeJwt(answer.access_token);
        expect(access).toMatchObject({ sub: alice.id, sub_kind: 'user', client_id: spa.id, realm_id: realmId, scope: 'openid profile' });
        const session = await app.deps.db.selectFrom('auth_sessions').selectAll().where('id', '=', access.session_id as string).executeTakeFirstOrThrow();
        expect(session).toMatchObject({ client_id: spa.id, sub: alice.id, parent_id: fixture.sessionId, revoked_at: null });
        // created_at is the authentication time (API.md §3), which a refreshed ID token keeps (Core §12.2)
        expect(Math.floor(fromDbDate(session.created_at).getTime() / 1000)).toBe(Math.floor(authTime.getTime() / 1000));
        const row = await app.deps.db.selectFrom('auth_authorization_codes').select(['used_at', 'issued_session_id'])
            .where('session_id', '=', fixture.sessionId).executeTakeFirstOrThrow();
        expect(row.issued_session_id).toBe(access.session_id);
        expect(row.used_at).not.toBeNull();
        expect(await probe(app, `Bearer ${answer.access_token}`)).toBe(200);

        // the refresh grant rotates the application session's token and keeps auth_time
        const refreshed = await refresh(app, answer.refresh_token!, { client_id: spa.id });
        expect(refreshed.statusCode, refreshed.body).toBe(200);
        const idToken = decodeJwt((refreshed.json() as TokenAnswer).id_token!);
        expect(idToken).toMatchObject({ sid: access.session_id, auth_time: Math.floor(authTime.getTime() / 1000), aud: spa.id });
        expect(idToken.nonce).toBeUndefined();
    });

    it('redeems a confidential client\'s code with its secret, PKCE or not; its bare client_id is refused', async () => {
        const plain = await mint({ clientId: web.id, redirectUri: WEB_CB, codeChallenge: null });
        expectInvalidGrant(await redeem({ code: plain.code, client_id: web.id, redirect_uri: WEB_CB }), 'invalid_client');
        const ok = await redeem({ code: plain.code, redirect_uri: WEB_CB }, web.header);
        expect(ok.statusCode, ok.body).toBe(200);
        const pkce = await mint({ clientId: web.id, redirectUri: WEB_CB });
        expectInvalidGrant(await redeem({ code: pkce.code, redirect_uri: WEB_CB }, web.header));
        const withVerifier = await redeem({ code: pkce.code, redirect_uri: WEB_CB, code_verifier: pkce.verifier }, web.header);
        expect(withVerifier.statusCode, withVerifier.body).toBe(200);
        // RFC 9700 §4.8.2: a verifier for a code bound to no challenge is a downgrade attempt
        const downgrade = await mint({ clientId: web.id, redirectUri: WEB_CB, codeChallenge: null });
        expectInvalidGrant(await redeem({ code: downgrade.code, redirect_uri: WEB_CB, code_verifier: pkcePair().verifier }, web.header));
    });

    it('refuses a wrong, malformed or missing verifier without spending the code', async () => {
        const { code, verifier } = await mint();
        expectInvalidGrant(await publicRedeem(code, pkcePair().verifier));
        expectInvalidGrant(await publicRedeem(code, 'short'));
        expectInvalidGrant(await publicRedeem(code, `${verifier.slice(0, -1)}!`));
        expectInvalidGrant(await publicRedeem(code, undefined));
        // a public client's code minted without a challenge is never redeemable
        const bare = await mint({ codeChallenge: null });
        expectInvalidGrant(await publicRedeem(bare.code, undefined));
        // every refusal above left the code usable for its honest owner
        expect((await publicRedeem(code, verifier)).statusCode).toBe(200);
    });

    it('answers a replayed code with invalid_grant and revokes what the first redemption issued (RFC 6749 §4.1.2)', async () => {
        const { code, verifier } = await mint({ scope: 'openid offline_access' });
        const first = (await publicRedeem(code, verifier)).json() as TokenAnswer;
        const bearer = `Bearer ${first.access_token}`;
        expect(await probe(app, bearer)).toBe(200);
        expectInvalidGrant(await publicRedeem(code, verifier));
        expect(await probe(app, bearer)).toBe(401);
        expect((await refresh(app, first.refresh_token!, { client_id: spa.id })).statusCode).toBe(400);
        // the signing-in session is not the replayed code's to end
        const other = await mint();
        expect((await publicRedeem(other.code, other.verifier)).statusCode).toBe(200);
    });

    it('lets exactly one of two concurrent redemptions win', async () => {
        const { code, verifier, fixture } = await mint();
        const answers = await Promise.all([publicRedeem(code, verifier), publicRedeem(code, verifier)]);
        expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400]);
        const winner = answers.find((answer) => answer.statusCode === 200)!.json() as TokenAnswer;
        // the loser arrived after the winner spent the code: it revoked the winner's session too
        expect(await probe(app, `Bearer ${winner.access_token}`)).toBe(401);
        // and the loser's own session was rolled back with its transaction: one application session only
        const sessions = await app.deps.db.selectFrom('auth_sessions').select('id').where('parent_id', '=', fixture.sessionId).execute();
        expect(sessions.map((row) => row.id)).toEqual([decodeJwt(winner.access_token).session_id]);
    });

    it('signs the ID token RS256 by default and ES256 for a client that registered it (OIDC Registration §2)', async () => {
        const issuer = `${app.deps.config.publicUrl}/realms/code-realm`;
        const rs = await mint();
        const rsAnswer = (await publicRedeem(rs.code, rs.verifier)).json() as TokenAnswer;
        // read after issuing: the realm's RS256 key is created on demand by the first RS256 ID token
        const jwksAfter = async () => createLocalJWKSet(await app.json<JSONWebKeySet>({ method: 'GET', url: `/realms/${realmId}/jwks`, as: null }, 200));
        expect(decodeProtectedHeader(rsAnswer.id_token!).alg).toBe('RS256');
        await jwtVerify(rsAnswer.id_token!, await jwksAfter(), { issuer, audience: spa.id, algorithms: ['RS256'] });

        const es = (await app.json<{ data: { id: string; idTokenSignedResponseAlg: string } }>({
            method: 'POST', url: '/clients', payload: { name: 'spa-es256', realmId, redirectUri: SPA_CB, idTokenSignedResponseAlg: 'ES256' },
        }, 201)).data;
        expect(es.idTokenSignedResponseAlg).toBe('ES256');
        const minted = await mint({ clientId: es.id });
        const answer = (await redeem({ code: minted.code, client_id: es.id, redirect_uri: SPA_CB, code_verifier: minted.verifier })).json() as TokenAnswer;
        expect(decodeProtectedHeader(answer.id_token!).alg).toBe('ES256');
        const { payload } = await jwtVerify(answer.id_token!, await jwksAfter(), { issuer, audience: es.id, algorithms: ['ES256'] });
        expect(payload.at_hash).toEqual(expect.any(String));
        // a refreshed ID token keeps the client's algorithm
        const refreshed = (await refresh(app, answer.refresh_token!, { client_id: es.id })).json() as TokenAnswer;
        expect(decodeProtectedHeader(refreshed.id_token!).alg).toBe('ES256');

        // only the two algorithms are accepted; null returns to RS256
        const refused = await app.request({ method: 'POST', url: `/clients/${es.id}`, payload: { idTokenSignedResponseAlg: 'HS256' } });
        expect(refused.statusCode).toBe(400);
        expect(refused.json().issues[0].path).toEqual(['idTokenSignedResponseAlg']);
        await app.json({ method: 'POST', url: `/clients/${es.id}`, payload: { idTokenSignedResponseAlg: null } }, 200);
        const back = await mint({ clientId: es.id });
        const backAnswer = (await redeem({ code: back.code, client_id: es.id, redirect_uri: SPA_CB, code_verifier: back.verifier })).json() as TokenAnswer;
        expect(decodeProtectedHeader(backAnswer.id_token!).alg).toBe('RS256');
    });

    it('refuses a code of another client, another redirect_uri, an unknown or an expired code', async () => {
        const { code, verifier } = await mint();
        expectInvalidGrant(await redeem({ code, redirect_uri: SPA_CB, code_verifier: verifier }, web.header));
        expectInvalidGrant(await publicRedeem(code, verifier, { redirect_uri: `${SPA_CB}/other` }));
        expectInvalidGrant(await publicRedeem(code, verifier, { redirect_uri: WEB_CB }));
        expectInvalidGrant(await publicRedeem('not-a-code', verifier));
        const expired = await mint({ expiresAt: new Date(Date.now() - 1000) });
        expectInvalidGrant(await publicRedeem(expired.code, expired.verifier));
        // none of them spent the first code
        expect((await publicRedeem(code, verifier)).statusCode).toBe(200);
        // a missing redirect_uri or client_id is a malformed request
        const missing = await redeem({ code, client_id: spa.id, code_verifier: verifier });
        expect(missing.json()).toMatchObject({ error: 'invalid_request' });
        const anonymous = await redeem({ code, redirect_uri: SPA_CB, code_verifier: verifier });
        expect(anonymous.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('refuses a code minted before its session ended or its user was deactivated (spec Authentication 12)', async () => {
        const revoked = await mint();
        await app.deps.sessions.revoke(app.deps.db, revoked.fixture.sessionId);
        expectInvalidGrant(await publicRedeem(revoked.code, revoked.verifier));
        const bob = await createUser(app, realmId, 'bob');
        const deactivated = await mint({ userId: bob.id, sessionId: await signIn(bob) });
        await app.json({ method: 'POST', url: `/users/${bob.id}`, payload: { active: false } }, 200);
        expectInvalidGrant(await publicRedeem(deactivated.code, deactivated.verifier));
        // inactive user with a live session (the row changed behind the API): still refused
        const carol = await createUser(app, realmId, 'carol');
        const inactive = await mint({ userId: carol.id, sessionId: await signIn(carol) });
        await app.deps.db.updateTable('auth_users').set({ active: dialect === 'postgres' ? false : 0 }).where('id', '=', carol.id).execute();
        expectInvalidGrant(await publicRedeem(inactive.code, inactive.verifier));
    });

    it('honours the client\'s grant types and access policy', async () => {
        const narrow = await createClient(app, realmId, 'no-code', { redirectUri: WEB_CB, grantTypes: ['client_credentials'] });
        const { code } = await mint({ clientId: narrow.id, redirectUri: WEB_CB, codeChallenge: null });
        expectInvalidGrant(await redeem({ code, redirect_uri: WEB_CB }, narrow.header), 'unauthorized_client');
        // an identity policy inverted: every identity fails it; the code stays unspent
        const denyAll = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/policies', payload: { type: 'identity', name: 'deny-everyone', realmId, invert: true },
        }, 201)).data.id;
        const policed = await createClient(app, realmId, 'policed', { redirectUri: WEB_CB, accessPolicyId: denyAll });
        const refused = await mint({ clientId: policed.id, redirectUri: WEB_CB, codeChallenge: null });
        expectInvalidGrant(await redeem({ code: refused.code, redirect_uri: WEB_CB }, policed.header));
        const row = await app.deps.db.selectFrom('auth_authorization_codes').select('used_at').where('client_id', '=', policed.id).executeTakeFirstOrThrow();
        expect(row.used_at).toBeNull();
    });
});
