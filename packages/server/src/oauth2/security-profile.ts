import type { SecurityProfile } from '@realmgate/core';
import type { RequestClient } from './client-auth/authenticate.js';
import { invalidClient } from './errors.js';

/**
 * What a realm's security profile demands of every protocol request (API.md §8 `securityProfile`).
 * Without a profile a realm accepts what each client registered; with `fapi2` it enforces the
 * FAPI 2.0 Security Profile (final) for every client, whatever the client registered:
 * - §5.3.2.2 item 2: pushed authorization requests (RFC 9126) only;
 * - §5.3.2.2 item 4 and §5.3.3.2: PKCE with S256 (RFC 7636);
 * - §5.3.2.1 item 1 and §5.3.3.1: confidential clients only, authenticated by private_key_jwt
 *   (mutual TLS is not offered), so public clients are refused;
 * - §5.3.2.1 item 2: sender-constrained access tokens — DPoP (RFC 9449), which also binds the
 *   refresh requests of the token's client;
 * - §5.3.2.2 item 12: authorization codes live at most 60 seconds;
 * - §5.4.1: JWS algorithms PS256, ES256 and EdDSA only (client assertions, request objects, DPoP
 *   proofs, and the ID tokens the realm signs);
 * - §5.3.2.2 item 6 (RFC 9207): `iss` in every authorization response, which every realm sends.
 */
export interface ProtocolProfile {
    name: SecurityProfile | null;
    requirePushedRequests: boolean;
    requirePkce: boolean;
    requireDpop: boolean;
    /** the client authentication methods the realm accepts; null = whatever the client registered */
    clientAuthenticationMethods: readonly string[] | null;
    /** the JWS algorithms the realm accepts from clients; null = each check's own allowlist */
    clientSigningAlgorithms: readonly string[] | null;
    /** the ID token algorithm the realm signs with whatever the client registered; null = the client's choice */
    idTokenAlgorithm: 'ES256' | null;
    authorizationCodeLifetimeMs: number;
}

/** Spec Limits "authorization code lifetime 5 minutes" (RFC 6749 §4.1.2: short-lived, 10 minutes at most). */
const CODE_LIFETIME_MS = 5 * 60 * 1000;
/** FAPI 2.0 Security Profile §5.3.2.2 item 12. */
const FAPI2_CODE_LIFETIME_MS = 60 * 1000;
/** FAPI 2.0 Security Profile §5.4.1 item 1. */
const FAPI2_SIGNING_ALGORITHMS: readonly string[] = Object.freeze(['PS256', 'ES256', 'EdDSA']);

/** The realm columns the profile follows from. */
export interface RealmProtocolSettings {
    securityProfile?: string | null | undefined;
    requirePushedAuthorizationRequests?: boolean | undefined;
}

export function profileOf(realm: RealmProtocolSettings): ProtocolProfile {
    if (realm.securityProfile === 'fapi2') {
        return {
            name: 'fapi2',
            requirePushedRequests: true,
            requirePkce: true,
            requireDpop: true,
            clientAuthenticationMethods: ['private_key_jwt'],
            clientSigningAlgorithms: FAPI2_SIGNING_ALGORITHMS,
            idTokenAlgorithm: 'ES256',
            authorizationCodeLifetimeMs: FAPI2_CODE_LIFETIME_MS,
        };
    }
    return {
        name: null,
        requirePushedRequests: realm.requirePushedAuthorizationRequests === true,
        requirePkce: false,
        requireDpop: false,
        clientAuthenticationMethods: null,
        clientSigningAlgorithms: null,
        idTokenAlgorithm: null,
        authorizationCodeLifetimeMs: CODE_LIFETIME_MS,
    };
}

/**
 * FAPI 2.0 Security Profile §5.3.2.1 item 1 and §5.4.1: a realm with a profile accepts at its
 * token and pushed-authorization endpoints only clients that authenticated with the methods and
 * algorithms the profile names (RFC 6749 §5.2 invalid_client otherwise); without one, every client
 * authenticates as it registered.
 */
export function assertProfileAdmitsClient(profile: ProtocolProfile, client: Pick<RequestClient, 'authenticated' | 'method' | 'algorithm'> | null): void {
    const methods = profile.clientAuthenticationMethods;
    if (methods === null) return;
    if (!client?.authenticated || !methods.includes(client.method)) {
        throw invalidClient(`The realm's FAPI 2.0 profile accepts ${methods.join(', ')} client authentication only.`);
    }
    const algorithms = profile.clientSigningAlgorithms;
    if (algorithms !== null && !algorithms.includes(client.algorithm ?? '')) {
        throw invalidClient(`The realm's FAPI 2.0 profile accepts client assertions signed with ${algorithms.join(', ')} only.`);
    }
}

/** RFC 9449 §7.1 names Ed25519 beside EdDSA for the same signatures (RFC 9864). */
const ALGORITHM_ALIASES: Readonly<Record<string, string>> = { Ed25519: 'EdDSA' };

/** Whether a JWS algorithm is one the profile accepts (always, without a profile). */
export function profileAdmitsAlgorithm(profile: ProtocolProfile, algorithm: string): boolean {
    return profile.clientSigningAlgorithms === null || profile.clientSigningAlgorithms.includes(ALGORITHM_ALIASES[algorithm] ?? algorithm);
}
