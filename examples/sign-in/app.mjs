// A web application that signs its users in through Realmgate with the authorization code flow,
// PKCE and OpenID Connect, using openid-client (a certified relying party) — docs/guide/sign-in.md.
// Run:
//   ISSUER=http://localhost:3000/realms/master CLIENT_ID=<client id> [CLIENT_SECRET=<secret>] node examples/sign-in/app.mjs
// then open http://127.0.0.1:8080/ and sign in.
import { createServer } from 'node:http';
import * as oidc from 'openid-client';

const { ISSUER, CLIENT_ID, CLIENT_SECRET } = process.env;
const PORT = Number(process.env.PORT ?? 8080);
if (!ISSUER || !CLIENT_ID) {
    console.error('Set ISSUER (e.g. http://localhost:3000/realms/master) and CLIENT_ID; CLIENT_SECRET for a confidential client.');
    process.exit(1);
}

const base = `http://127.0.0.1:${PORT}`;
const redirectUri = `${base}/callback`;
// a local development server speaks plain http; never allow it against a production issuer
const insecure = new URL(ISSUER).protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {};
const config = await oidc.discovery(
    new URL(ISSUER), CLIENT_ID, CLIENT_SECRET, CLIENT_SECRET ? oidc.ClientSecretBasic() : oidc.None(), insecure,
);

// one sign-in at a time is enough for an example; a real application keeps these per browser session
let pending = null;
let signedIn = null;

const html = (body) => `<!doctype html><meta charset="utf-8"><title>Example application</title>${body}`;
const escape = (value) => String(value).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', base);
    try {
        if (url.pathname === '/login') {
            const verifier = oidc.randomPKCECodeVerifier();
            pending = { verifier, state: oidc.randomState(), nonce: oidc.randomNonce() };
            const target = oidc.buildAuthorizationUrl(config, {
                redirect_uri: redirectUri, scope: 'openid profile email', state: pending.state, nonce: pending.nonce,
                code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
            });
            response.writeHead(302, { location: target.href }).end();
            return;
        }
        if (url.pathname === '/callback') {
            if (!pending) throw new Error('no sign-in in progress');
            const tokens = await oidc.authorizationCodeGrant(config, url, {
                pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true,
            });
            pending = null;
            const claims = tokens.claims();
            const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
            signedIn = { claims, userinfo, idToken: tokens.id_token };
            console.log(JSON.stringify({ event: 'signed-in', sub: claims.sub, userinfo }));
            response.writeHead(302, { location: '/' }).end();
            return;
        }
        if (url.pathname === '/logout' && signedIn) {
            const target = oidc.buildEndSessionUrl(config, { id_token_hint: signedIn.idToken, post_logout_redirect_uri: `${base}/` });
            signedIn = null;
            response.writeHead(302, { location: target.href }).end();
            return;
        }
        const body = signedIn
            ? `<h1>Signed in as ${escape(signedIn.userinfo.preferred_username ?? signedIn.claims.sub)}</h1>
               <pre id="userinfo">${escape(JSON.stringify(signedIn.userinfo, null, 2))}</pre><p><a href="/logout">Sign out</a></p>`
            : '<h1>Not signed in</h1><p><a href="/login">Sign in</a></p>';
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(body));
    } catch (error) {
        response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(html(`<h1>Sign-in failed</h1><pre>${escape(error.message)}</pre>`));
    }
});

server.listen(PORT, '127.0.0.1', () => console.log(`Example application on ${base}/ (redirect URI ${redirectUri})`));
