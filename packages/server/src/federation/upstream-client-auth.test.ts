import { describe, expect, it } from 'vitest';
import { upstreamAuthMethod } from './upstream-client-auth.js';

describe('upstreamAuthMethod: how Realmgate authenticates at an upstream token endpoint', () => {
    const oidc = { protocol: 'oidc', token_endpoint_auth_method: null };

    it('follows discovery: client_secret_basic first, then client_secret_post (RFC 6749 §2.3.1; OIDC Discovery §3)', () => {
        expect(upstreamAuthMethod(oidc, true, { token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_post', 'client_secret_basic'] })).toBe('client_secret_basic');
        expect(upstreamAuthMethod(oidc, true, { token_endpoint_auth_methods_supported: ['private_key_jwt', 'client_secret_post'] })).toBe('client_secret_post');
        // absent, the member's default is client_secret_basic
        expect(upstreamAuthMethod(oidc, true, {})).toBe('client_secret_basic');
    });

    it('a provider\'s choice wins; without a secret or a choice the client is public; OAuth 2.0 without discovery posts the secret', () => {
        expect(upstreamAuthMethod({ ...oidc, token_endpoint_auth_method: 'private_key_jwt' }, false, { token_endpoint_auth_methods_supported: ['client_secret_basic'] })).toBe('private_key_jwt');
        expect(upstreamAuthMethod({ ...oidc, token_endpoint_auth_method: 'client_secret_post' }, true, {})).toBe('client_secret_post');
        expect(upstreamAuthMethod(oidc, false, { token_endpoint_auth_methods_supported: ['client_secret_basic'] })).toBe('none');
        expect(upstreamAuthMethod({ protocol: 'oauth2', token_endpoint_auth_method: null }, true, {})).toBe('client_secret_post');
        expect(upstreamAuthMethod({ protocol: 'oauth2', token_endpoint_auth_method: 'client_secret_basic' }, true, {})).toBe('client_secret_basic');
    });
});
