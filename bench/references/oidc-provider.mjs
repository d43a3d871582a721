/**
 * The peer in the same run: oidc-provider with one confidential client, client_credentials and
 * introspection. A token requested for the resource `urn:bench:api` is an ES256-signed JWT (the
 * same work as a Realmgate access token); one requested without a resource is opaque, stored in
 * oidc-provider's in-memory adapter.
 */
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

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
    }],
    jwks: { keys: [signingKey] },
    scopes: ['api'],
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
    ttl: { ClientCredentials: 900, AccessToken: 900 },
});
// silence the development-configuration warnings on every request
provider.on('server_error', (_ctx, error) => console.error(error));
provider.listen(port);
