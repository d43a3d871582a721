/**
 * The peer in the same run: oidc-provider with one confidential client, client_credentials and
 * introspection. A token requested for the resource `urn:bench:api` is an ES256-signed JWT (the
 * same work as a Realmgate access token); one requested without a resource is opaque, stored in
 * oidc-provider's in-memory adapter.
 *
 * UserInfo (browser sign-in): an account and a second client `bench-rp` (authorization code), and one
 * access token with `openid profile email` minted at boot through the provider's own models —
 * a Grant and an AccessToken saved in its adapter, exactly what a code redemption leaves behind —
 * served at `GET /bench/userinfo-token` so the bench can load oidc-provider's `/me` with it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const ACCOUNT = {
    sub: 'bench-user', preferred_username: 'bench-user', given_name: 'Bench', family_name: 'User',
    email: 'bench-user@example.com', email_verified: true,
};

const port = Number(process.env.PORT);
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingKey = { ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid: 'bench' };

const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [{
        client_id: 'bench',
        client_secret: 'bench-secret-0123456789abcdef0123456789',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'api',
        id_token_signed_response_alg: 'ES256',
    }, {
        client_id: 'bench-rp',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: ['https://rp.example.com/cb'],
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: 'ES256',
    }],
    findAccount: async (_ctx, id) => (id === ACCOUNT.sub ? { accountId: id, claims: async () => ACCOUNT } : undefined),
    claims: { openid: ['sub'], profile: ['preferred_username', 'given_name', 'family_name'], email: ['email', 'email_verified'] },
    jwks: { keys: [signingKey] },
    scopes: ['api', 'openid', 'profile', 'email'],
    features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true, allowedPolicy: async () => true },
        resourceIndicators: {
            enabled: true,
            defaultResource: async () => undefined,
            useGrantedResource: async () => false,
            getResourceServerInfo: async () => ({ scope: 'api', accessTokenFormat: 'jwt', accessTokenTTL: 900, jwt: { sign: { alg: 'ES256' } } }),
        },
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    ttl: { ClientCredentials: 900, AccessToken: 900, Grant: 3600 },
});
// silence the development-configuration warnings on every request
provider.on('server_error', (_ctx, error) => console.error(error));

/**
 * A Grant and an AccessToken saved in the adapter, as a code redemption leaves them. Minted on
 * each call: the development adapter is an LRU of 1,000 entries, which the client_credentials
 * scenarios (opaque tokens are stored) flush, so the bench fetches a fresh one before each round.
 */
async function mintUserinfoToken() {
    const grant = new provider.Grant({ accountId: ACCOUNT.sub, clientId: 'bench-rp' });
    grant.addOIDCScope('openid profile email');
    const grantId = await grant.save();
    const accessToken = new provider.AccessToken({
        accountId: ACCOUNT.sub, client: await provider.Client.find('bench-rp'), grantId, scope: 'openid profile email', gty: 'authorization_code',
    });
    return accessToken.save();
}

const callback = provider.callback();
createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/bench/userinfo-token') {
        mintUserinfoToken().then((token) => {
            response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token }));
        }, (error) => {
            console.error(error);
            response.writeHead(500).end();
        });
        return;
    }
    callback(request, response);
}).listen(port);
