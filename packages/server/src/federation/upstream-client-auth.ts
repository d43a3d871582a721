import { webcrypto, type KeyObject } from 'node:crypto';
import * as client from 'openid-client';
import { UPSTREAM_AUTH_METHODS, type ProviderRow, type UpstreamAuthMethod } from '../storage/identity-providers.js';

/*
 * How Realmgate authenticates as a client at an upstream's token endpoint (RFC 6749 §2.3, OIDC Core
 * §9). A provider's `tokenEndpointAuthMethod` chooses; without a choice, OpenID Connect follows the
 * upstream's discovery (`token_endpoint_auth_methods_supported`, OIDC Discovery §3), preferring
 * client_secret_basic — the method every server must support (RFC 6749 §2.3.1) and the one
 * discovery implies when the member is absent — then client_secret_post. private_key_jwt (RFC 7523
 * §2.2, OIDC Core §9) signs the assertion with the realm's signing key, as Keycloak does: the
 * upstream registers the realm's JWKS (`/realms/<realm>/jwks`), and no shared secret exists.
 */

/** The realm's signing key: the private key of a JWK its JWKS publishes under `kid`. */
export interface AssertionKey {
    kid: string;
    key: KeyObject;
}

/** Looked up at each token request, so a rotated realm key signs the next assertion. */
export type AssertionKeySource = () => Promise<AssertionKey>;

const isMethod = (value: string | null): value is UpstreamAuthMethod => (UPSTREAM_AUTH_METHODS as readonly string[]).includes(value ?? '');

/**
 * The method used with this upstream's metadata: the provider's choice; else none without a secret
 * (a public client, RFC 6749 §2.1); else, from discovery, client_secret_basic when named (or when
 * the member is absent: its default), client_secret_post when only it is; an OAuth 2.0 provider
 * without discovery keeps client_secret_post, the form GitHub-style token endpoints accept.
 */
export function upstreamAuthMethod(provider: Pick<ProviderRow, 'protocol' | 'token_endpoint_auth_method'>, hasSecret: boolean, metadata: Pick<client.ServerMetadata, 'token_endpoint_auth_methods_supported'>): UpstreamAuthMethod | 'none' {
    if (isMethod(provider.token_endpoint_auth_method)) return provider.token_endpoint_auth_method;
    if (!hasSecret) return 'none';
    if (provider.protocol !== 'oidc') return 'client_secret_post';
    const supported = metadata.token_endpoint_auth_methods_supported;
    if (!supported || supported.includes('client_secret_basic')) return 'client_secret_basic';
    return supported.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/** WebCrypto parameters of the realm's key types (keys/material.ts: P-256 for ES256, RSA for RS256). */
function importParameters(key: KeyObject): webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams {
    if (key.asymmetricKeyType === 'ec') return { name: 'ECDSA', namedCurve: 'P-256' };
    if (key.asymmetricKeyType === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    throw new Error(`a ${key.asymmetricKeyType ?? 'symmetric'} key cannot sign a client assertion`);
}

/** openid-client signs with a WebCrypto key; converted once per key object (keys are immutable). */
const cryptoKeys = new WeakMap<KeyObject, Promise<webcrypto.CryptoKey>>();
function cryptoKeyOf(key: KeyObject): Promise<webcrypto.CryptoKey> {
    let converted = cryptoKeys.get(key);
    if (!converted) {
        converted = webcrypto.subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), importParameters(key), false, ['sign']);
        cryptoKeys.set(key, converted);
    }
    return converted;
}

/**
 * openid-client's client authentication for a provider, deciding per request from the metadata it
 * is handed (discovery's, or the configured endpoints'). The secret never leaves the request it
 * authenticates: neither logged nor kept beyond the configuration.
 */
export function upstreamClientAuth(provider: ProviderRow, clientSecret: string | null, assertionKey: AssertionKeySource): client.ClientAuth {
    return async (as, metadata, body, headers) => {
        const method = upstreamAuthMethod(provider, clientSecret !== null, as);
        if (method === 'private_key_jwt') {
            const { kid, key } = await assertionKey();
            return client.PrivateKeyJwt({ key: await cryptoKeyOf(key), kid })(as, metadata, body, headers);
        }
        if (method !== 'none' && clientSecret === null) throw new Error(`${method} needs the provider's client secret.`);
        const auth = method === 'client_secret_basic' ? client.ClientSecretBasic(clientSecret!) : method === 'client_secret_post' ? client.ClientSecretPost(clientSecret!) : client.None();
        return auth(as, metadata, body, headers);
    };
}
