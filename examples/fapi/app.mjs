// A FAPI 2.0 relying party: it signs its users in through a realm whose securityProfile is "fapi2",
// with openid-client (a certified relying party) doing everything the profile demands —
// private_key_jwt client authentication, a signed request object (JAR) pushed to the
// pushed-authorization endpoint (PAR), PKCE S256, and DPoP-bound tokens — then refreshes its tokens
// and calls an API with them. docs/guide/modern-oauth.md (FAPI 2.0). Run:
//   node examples/fapi/app.mjs --generate-key client-key.json     (prints the public JWK Set to register)
//   ISSUER=http://localhost:3000/realms/<realm> CLIENT_ID=<client id> PRIVATE_KEY_FILE=client-key.json \
//     [API_URL=<a DPoP-protected URL>] node examples/fapi/app.mjs
// then open http://127.0.0.1:8080/ and sign in.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import * as oidc from 'openid-client';

// FAPI 2.0 Security Profile §5.4.1: ES256 (PS256 and EdDSA are the others)
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' };

if (process.argv[2] === '--generate-key') {
    const file = process.argv[3];
    if (!file) {
        console.error('Usage: node examples/fapi/app.mjs --generate-key <file for the private key>');
        process.exit(1);
    }
    const pair = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
    const kid = crypto.randomUUID();
    const privateJwk = { ...await crypto.subtle.exportKey('jwk', pair.privateKey), kid, alg: 'ES256' };
    const publicJwk = { ...await crypto.subtle.exportKey('jwk', pair.publicKey), kid, alg: 'ES256', use: 'sig' };
    delete publicJwk.key_ops;
    delete publicJwk.ext;
    await writeFile(file, JSON.stringify(privateJwk), { mode: 0o600 });
    // the client's jwks: what POST /clients takes
    console.log(JSON.stringify({ keys: [publicJwk] }));
    process.exit(0);
}

const { ISSUER, CLIENT_ID, PRIVATE_KEY_FILE, API_URL } = process.env;
const PORT = Number(process.env.PORT ?? 8080);
if (!ISSUER || !CLIENT_ID || !PRIVATE_KEY_FILE) {
    console.error('Set ISSUER (e.g. http://localhost:3000/realms/bank), CLIENT_ID and PRIVATE_KEY_FILE (from --generate-key); API_URL to call an API.');
    process.exit(1);
}

const privateJwk = JSON.parse(await readFile(PRIVATE_KEY_FILE, 'utf8'));
const { kid } = privateJwk;
const privateKey = await crypto.subtle.importKey('jwk', { ...privateJwk, key_ops: ['sign'] }, ALGORITHM, false, ['sign']);
const clientKey = { key: privateKey, kid };

const base = `http://127.0.0.1:${PORT}`;
const redirectUri = `${base}/callback`;
// a local development server speaks plain http; never allow it against a production issuer
const insecure = new URL(ISSUER).protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {};
const config = await oidc.discovery(new URL(ISSUER), CLIENT_ID, undefined, oidc.PrivateKeyJwt(clientKey), insecure);

// the DPoP key: one per application instance here; tokens bound to it are useless to anyone without it
const dpopKeys = await crypto.subtle.generateKey(ALGORITHM, false, ['sign', 'verify']);
const DPoP = oidc.getDPoPHandle(config, dpopKeys);

// one sign-in at a time is enough for an example; a real application keeps these per browser session
let pending = null;
let signedIn = null;

const html = (body) => `<!doctype html><meta charset="utf-8"><title>FAPI 2.0 example</title>${body}`;
const escape = (value) => String(value).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const report = (event, detail) => console.log(JSON.stringify({ event, ...detail }));

const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', base);
    try {
        if (url.pathname === '/login') {
            const verifier = oidc.randomPKCECodeVerifier();
            pending = { verifier, nonce: oidc.randomNonce() };
            // the request object is signed with the client's key (RFC 9101), then pushed (RFC 9126)
            const signed = await oidc.buildAuthorizationUrlWithJAR(config, {
                redirect_uri: redirectUri, scope: 'openid profile offline_access', nonce: pending.nonce,
                code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
            }, clientKey);
            const target = await oidc.buildAuthorizationUrlWithPAR(config, signed.searchParams, { DPoP });
            response.writeHead(302, { location: target.href }).end();
            return;
        }
        if (url.pathname === '/callback') {
            if (!pending) throw new Error('no sign-in in progress');
            const tokens = await oidc.authorizationCodeGrant(config, url, {
                pkceCodeVerifier: pending.verifier, expectedNonce: pending.nonce, idTokenExpected: true,
            }, undefined, { DPoP });
            pending = null;
            signedIn = { claims: tokens.claims(), tokens };
            report('signed-in', { sub: signedIn.claims.sub, token_type: tokens.token_type });
            response.writeHead(302, { location: '/' }).end();
            return;
        }
        if (url.pathname === '/refresh' && signedIn) {
            const tokens = await oidc.refreshTokenGrant(config, signedIn.tokens.refresh_token, undefined, { DPoP });
            signedIn.tokens = tokens;
            report('refreshed', { token_type: tokens.token_type });
            response.writeHead(302, { location: '/' }).end();
            return;
        }
        if (url.pathname === '/api' && signedIn && API_URL) {
            const answer = await oidc.fetchProtectedResource(config, signedIn.tokens.access_token, new URL(API_URL), 'GET', undefined, undefined, { DPoP });
            const body = await answer.text();
            report('api', { status: answer.status, body });
            response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(`<h1>API answered ${answer.status}</h1><pre id="api">${escape(body)}</pre><p><a href="/">Back</a></p>`));
            return;
        }
        const body = signedIn
            ? `<h1>Signed in as ${escape(signedIn.claims.preferred_username ?? signedIn.claims.sub)}</h1>
               <p>Token type: ${escape(signedIn.tokens.token_type)}</p>
               <p><a href="/refresh">Refresh the tokens</a>${API_URL ? ' · <a href="/api">Call the API</a>' : ''}</p>`
            : '<h1>Not signed in</h1><p><a href="/login">Sign in</a></p>';
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(body));
    } catch (error) {
        report('failed', { message: error.message, code: error.code, error: error.error });
        response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(html(`<h1>Sign-in failed</h1><pre>${escape(error.message)}</pre>`));
    }
});

server.listen(PORT, '127.0.0.1', () => console.log(`FAPI 2.0 example application on ${base}/ (redirect URI ${redirectUri})`));
