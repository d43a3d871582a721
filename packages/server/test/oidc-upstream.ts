import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';
import { freePort } from './network.js';

/*
 * An upstream OpenID provider on loopback for the identity-provider tests (issue 16): oidc-provider
 * with its development sign-in pages (any login name, any password), one confidential client for
 * Realmgate, accounts whose claims carry `groups`, and a switch that tampers with the ID token of
 * the next token answers (one character of its signature changed) — the tampered-token case.
 */

export interface OidcUpstream {
    issuer: string;
    clientId: string;
    clientSecret: string;
    /** while true, every token answer's id_token has a broken signature */
    tamper: { on: boolean };
    close(): Promise<void>;
}

export async function startOidcUpstream(redirectUri: string): Promise<OidcUpstream> {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const clientId = 'realmgate';
    const clientSecret = 'upstream-client-secret-0123456789abcdef';
    const tamper = { on: false };
    const provider = new Provider(issuer, {
        clients: [{
            client_id: clientId, client_secret: clientSecret, grant_types: ['authorization_code'], response_types: ['code'],
            redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post',
        }],
        // the login name typed on the development page is the account and the subject (`sub`)
        findAccount: async (_ctx: unknown, id: string) => ({
            accountId: id,
            claims: async () => ({
                sub: id, preferred_username: id, name: `${id} Upstream`, email: `${id}@upstream.test`, email_verified: true,
                groups: id.startsWith('admin') ? ['admins', 'staff'] : ['staff'],
            }),
        }),
        claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email', 'email_verified'], groups: ['groups'] },
        scopes: ['openid', 'profile', 'email', 'groups'],
        jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', kid: 'upstream' }] },
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true } },
        cookies: { keys: ['upstream-cookie-key'] },
        // the claims of the ID token itself, so Realmgate reads them without a userinfo call too
        conformIdTokenClaims: false,
    });
    provider.use(async (ctx, next) => {
        await next();
        const body = ctx.body as { id_token?: string } | undefined;
        if (tamper.on && ctx.path === '/token' && body && typeof body.id_token === 'string') {
            const [header, payload, signature = ''] = body.id_token.split('.');
            const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
            ctx.body = { ...body, id_token: `${header}.${payload}.${flipped}` };
        }
    });
    const server: Server = createServer(provider.callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return {
        issuer, clientId, clientSecret, tamper,
        close: () => new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        }),
    };
}
