import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../app.js';
import { authorizeParams, browser, browserWorld, codeRow, createBrowserClient, locationParams, type BrowserWorld } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { dpopKey, dpopProof, type DpopKey } from '../dpop-proofs.js';
import { login } from '../sessions.js';

/*
 * RFC 9449 §10: `dpop_jkt` on an authorization request — by query, API form or a pushed request
 * (and a DPoP proof sent with the push, §10.1) — binds the code to a DPoP key; the token request
 * redeeming it must prove that key, else invalid_grant, and the code stays unspent for the honest
 * retry. A malformed thumbprint is an error at the redirect URI (RFC 6749 §4.1.2.1), or on a page
 * while the redirect URI is not established.
 */
const PUBLIC_URL = 'https://auth.example.test';
const SECRET = 'dpop-jkt-client-secret';

const basic = (id: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(SECRET)}`).toString('base64')}`;

interface JktWorld extends BrowserWorld {
    /** a confidential client of the realm (SECRET), for pushed requests */
    confidentialId: string;
}

async function jktWorld(app: TestApp): Promise<JktWorld> {
    const world = await browserWorld(app, { firstParty: true });
    const confidentialId = await createBrowserClient(app, world.realmId, { redirectUri: world.redirectUri, secret: SECRET, firstParty: true });
    return { ...world, confidentialId };
}

describeEachDialect('dpop_jkt: authorization codes bound to a DPoP key (RFC 9449 §10)', (dialect) => {
    const app = useTestApp(dialect, { publicUrl: PUBLIC_URL });
    let world: JktWorld;
    let other: JktWorld;
    let key: DpopKey;
    let otherKey: DpopKey;
    beforeAll(async () => {
        [world, other, key, otherKey] = await Promise.all([jktWorld(app), jktWorld(app), dpopKey('ES256'), dpopKey('ES256')]);
    });

    /** a code minted through the API form (POST /authorize by the user's bearer) */
    const mint = async (target: JktWorld, extra: Record<string, string>) => {
        const user = await login(app, target.realmId, target.user.name, target.user.password);
        const { params, pair } = authorizeParams(target, extra);
        const answer = await app.request({ method: 'POST', url: '/authorize', as: user.bearer, payload: params });
        expect(answer.statusCode, answer.body).toBe(200);
        return { code: (answer.json() as { code: string }).code, verifier: pair.verifier };
    };
    const redeem = async (target: JktWorld, code: string, verifier: string, proofKey: DpopKey | null, clientId = target.clientId) => app.request({
        method: 'POST', url: '/token', as: null, payload: { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: target.redirectUri },
        headers: proofKey ? { dpop: await dpopProof(proofKey, { htm: 'POST', htu: `${PUBLIC_URL}/token` }) } : {},
    });
    /** the world's confidential client redeems, authenticated by Basic */
    const redeemConfidential = async (code: string, verifier: string, proofKey: DpopKey | null) => app.request({
        method: 'POST', url: '/token', as: null,
        payload: { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: world.redirectUri },
        headers: { authorization: basic(world.confidentialId), ...(proofKey ? { dpop: await dpopProof(proofKey, { htm: 'POST', htu: `${PUBLIC_URL}/token` }) } : {}) },
    });
    const expectInvalidGrant = (response: LightMyRequestResponse) => {
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_grant' });
    };
    const push = async (form: Record<string, string>, proof?: string) => app.request({
        method: 'POST', url: '/par', as: null, payload: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(world.confidentialId), ...(proof ? { dpop: proof } : {}) },
    });
    /** the code of a pushed request, redeemed at /authorize by the API form */
    const codeOfPushed = async (requestUri: string) => {
        const user = await login(app, world.realmId, world.user.name, world.user.password);
        const answer = await app.request({ method: 'POST', url: '/authorize', as: user.bearer, payload: { client_id: world.confidentialId, request_uri: requestUri } });
        expect(answer.statusCode, answer.body).toBe(200);
        return (answer.json() as { code: string }).code;
    };

    it('a code bound by dpop_jkt is redeemed with a proof of that key: a DPoP-bound token of the key', async () => {
        const { code, verifier } = await mint(world, { dpop_jkt: key.jkt });
        expect((await codeRow(app, code))!.dpop_jkt).toBe(key.jkt);
        const redeemed = await redeem(world, code, verifier, key);
        expect(redeemed.statusCode, redeemed.body).toBe(200);
        const tokens = redeemed.json() as { access_token: string; token_type: string };
        expect(tokens.token_type).toBe('DPoP');
        expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: key.jkt });
    });

    it('another key\'s proof or no proof is invalid_grant, and the code stays for the honest retry', async () => {
        const { code, verifier } = await mint(world, { dpop_jkt: key.jkt });
        expectInvalidGrant(await redeem(world, code, verifier, otherKey));
        expectInvalidGrant(await redeem(world, code, verifier, null));
        expect((await codeRow(app, code))!.used_at).toBeNull();
        expect((await redeem(world, code, verifier, key)).statusCode).toBe(200);
    });

    it('a code without dpop_jkt needs no proof, and takes any key a proof brings (RFC 9449 §5)', async () => {
        const bearer = await mint(world, {});
        expect((await codeRow(app, bearer.code))!.dpop_jkt).toBeNull();
        expect((await redeem(world, bearer.code, bearer.verifier, null)).json()).toMatchObject({ token_type: 'Bearer' });
        const bound = await mint(world, {});
        expect((await redeem(world, bound.code, bound.verifier, otherKey)).json()).toMatchObject({ token_type: 'DPoP' });
    });

    it('a malformed dpop_jkt is invalid_request at the redirect URI, with state and iss; on a page when the redirect URI is not registered', async () => {
        for (const malformed of [key.jkt.slice(1), `${key.jkt}=`, `${key.jkt.slice(1)}+`, `${key.jkt.slice(1)}/`, 'x'.repeat(64)]) {
            const { params } = authorizeParams(world, { dpop_jkt: malformed });
            const { base, params: answer } = locationParams(await browser(app).authorize(params));
            expect(base).toBe(world.redirectUri);
            expect(answer).toMatchObject({ error: 'invalid_request', state: params.state, iss: `${PUBLIC_URL}/realms/${world.realmName}` });
            expect(answer.error_description).toContain('dpop_jkt');
        }
        const { params } = authorizeParams(world, { dpop_jkt: 'short', redirect_uri: 'https://evil.example/cb' });
        const page = await browser(app).authorize(params);
        expect(page.statusCode, page.body).toBe(400);
        expect(page.headers.location).toBeUndefined();
    });

    it('a pushed request carries dpop_jkt to its code; a malformed one is refused at /par', async () => {
        const { params, pair } = authorizeParams({ ...world, clientId: world.confidentialId }, { dpop_jkt: key.jkt });
        const pushed = await push(params);
        expect(pushed.statusCode, pushed.body).toBe(201);
        const code = await codeOfPushed((pushed.json() as { request_uri: string }).request_uri);
        expect((await codeRow(app, code))!.dpop_jkt).toBe(key.jkt);
        expectInvalidGrant(await redeemConfidential(code, pair.verifier, otherKey));
        expectInvalidGrant(await redeemConfidential(code, pair.verifier, null));
        expect((await redeemConfidential(code, pair.verifier, key)).json()).toMatchObject({ token_type: 'DPoP' });
        const malformed = await push(authorizeParams({ ...world, clientId: world.confidentialId }, { dpop_jkt: 'not-a-thumbprint' }).params);
        expect(malformed.statusCode, malformed.body).toBe(400);
        expect(malformed.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('a DPoP proof sent with the push binds the code to its key; with dpop_jkt naming another key the push is refused (§10.1)', async () => {
        const { params, pair } = authorizeParams({ ...world, clientId: world.confidentialId });
        const proven = await push(params, await dpopProof(key, { htm: 'POST', htu: `${PUBLIC_URL}/par` }));
        expect(proven.statusCode, proven.body).toBe(201);
        const code = await codeOfPushed((proven.json() as { request_uri: string }).request_uri);
        expect((await codeRow(app, code))!.dpop_jkt).toBe(key.jkt);
        expectInvalidGrant(await redeemConfidential(code, pair.verifier, otherKey));
        expect((await redeemConfidential(code, pair.verifier, key)).json()).toMatchObject({ token_type: 'DPoP' });
        // both, naming different keys
        const mismatched = await push(authorizeParams({ ...world, clientId: world.confidentialId }, { dpop_jkt: otherKey.jkt }).params, await dpopProof(key, { htm: 'POST', htu: `${PUBLIC_URL}/par` }));
        expect(mismatched.statusCode, mismatched.body).toBe(400);
        expect(mismatched.json()).toMatchObject({ error: 'invalid_dpop_proof' });
        // both, naming the same key; and a proof for another URL is refused
        expect((await push(authorizeParams({ ...world, clientId: world.confidentialId }, { dpop_jkt: key.jkt }).params, await dpopProof(key, { htm: 'POST', htu: `${PUBLIC_URL}/par` }))).statusCode).toBe(201);
        const elsewhere = await push(authorizeParams({ ...world, clientId: world.confidentialId }).params, await dpopProof(key, { htm: 'POST', htu: `${PUBLIC_URL}/token` }));
        expect(elsewhere.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    });

    it('realm isolation: a bound code is not redeemed by a client of another realm, even with the key; its own client still can', async () => {
        const { code, verifier } = await mint(world, { dpop_jkt: key.jkt });
        expectInvalidGrant(await redeem(other, code, verifier, key, other.clientId));
        // the other realm's codes are bound to their own keys alike
        const foreign = await mint(other, { dpop_jkt: otherKey.jkt });
        expectInvalidGrant(await redeem(other, foreign.code, foreign.verifier, key));
        expect((await redeem(other, foreign.code, foreign.verifier, otherKey)).statusCode).toBe(200);
        expect((await redeem(world, code, verifier, key)).statusCode).toBe(200);
    });
});
