import { ErrorCode } from '@realmgate/core';
import type { DpopPresentation, DpopVerifier } from '../authn/dpop-proof.js';
import type { RealmRef } from '../storage/realms.js';
import { authenticateClient, clientAllowsGrant, type ClientAuthDeps, type RequestClient } from './client-auth/authenticate.js';
import { AppError } from '../errors/app-error.js';
import { invalidClient, invalidRequest, oauthError } from './errors.js';
import type { GrantHandler, TokenResponse } from './grants/contract.js';
import { protocolEndpoint, required, step, type Step } from './pipeline.js';
import { assertProfileAdmitsClient, profileOf } from './security-profile.js';
import { bodyClientCredentials, parseParameters, presentedClientId, proofKeyOf, realmOfRequest } from './steps.js';

export interface TokenEndpointRequest {
    body: unknown;
    authorization: string | undefined;
    ipAddress: string | null;
    userAgent: string | null;
    /** the request's DPoP header, method and path (RFC 9449 §5) */
    dpop: DpopPresentation;
}

export interface TokenEndpointDeps extends ClientAuthDeps {
    grants: readonly GrantHandler[];
    dpop: DpopVerifier;
}

/** A token request as its steps complete it. */
interface TokenRequestState {
    readonly request: TokenEndpointRequest;
    readonly query: undefined;
    readonly body: unknown;
    params: Record<string, string>;
    grant: GrantHandler | null;
    realm: RealmRef | null;
    client: RequestClient | null;
    response: TokenResponse | null;
    /** the thumbprint of the key the request's DPoP proof holds (RFC 9449 §5); null without a proof */
    dpopJkt: string | null;
    /** the nonce to hand out with the answer (RFC 9449 §8.2), when the realm requires them */
    dpopNonce: string | null;
}

/**
 * `POST /token` without its transport (DESIGN.md §3; RFC 6749 §3.2): parse parameters → grant
 * type supported → resolve realm → authenticate client | (charged) | client allows grant → the
 * grant's client-authentication requirement → the grant's parameters → DPoP proof → run grant.
 */
export function createTokenEndpoint(deps: TokenEndpointDeps) {
    const byType = new Map(deps.grants.map((grant) => [grant.type, grant]));

    const grantTypeSupported: Step<TokenRequestState> = step('grant type supported', (state) => {
        const grantType = state.params.grant_type;
        if (!grantType) throw invalidRequest('grant_type is required.');
        const grant = byType.get(grantType);
        if (!grant) throw oauthError(ErrorCode.UNSUPPORTED_GRANT_TYPE, `The grant type ${grantType} is not supported.`);
        state.grant = grant;
    });

    const resolveRealm: Step<TokenRequestState> = step('resolve realm', async (state) => {
        state.realm = await realmOfRequest(deps.db, state.params, {
            hint: required(state.grant, 'grant').realmHint?.(state.params), credentialId: presentedClientId(state.params, state.request.authorization),
        }, deps.lookups);
    });

    const authenticate: Step<TokenRequestState> = step('authenticate client', async (state) => {
        const realm = required(state.realm, 'realm');
        if (required(state.grant, 'grant').clientAuthentication !== 'none') {
            state.client = await authenticateClient(deps, realm.id, state.request.authorization, bodyClientCredentials(state.params));
        }
        // a realm's security profile (FAPI 2.0) admits only the client authentication it names
        assertProfileAdmitsClient(profileOf(realm), state.client);
    });

    /** The client's grantTypes (spec Authentication rule 14; RFC 6749 §5.2 unauthorized_client). */
    const clientAllows: Step<TokenRequestState> = step('client allows grant', (state) => {
        const grantType = required(state.grant, 'grant').type;
        if (state.client && !clientAllowsGrant(state.client.row, grantType)) {
            throw oauthError(ErrorCode.UNAUTHORIZED_CLIENT, `The client may not use the ${grantType} grant.`);
        }
    });

    const clientAuthenticationRequirement: Step<TokenRequestState> = step('grant client authentication', (state) => {
        const grant = required(state.grant, 'grant');
        if (grant.clientAuthentication !== 'required') return;
        if (!state.client) throw invalidClient(`The ${grant.type} grant needs client authentication.`);
        // RFC 6749 §4.4: a public client proves nothing, so it may not act on its own behalf
        if (!state.client.authenticated) throw oauthError(ErrorCode.UNAUTHORIZED_CLIENT, `The ${grant.type} grant needs a confidential client.`);
    });

    const grantParameters: Step<TokenRequestState> = step('grant parameters', (state) => {
        const grant = required(state.grant, 'grant');
        const names = grant.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
        if (names.some((name) => state.params[name] === undefined)) throw invalidRequest(`The ${grant.type} grant needs ${names.join(' and ')}.`);
    });

    /**
     * RFC 9449 §5: a `DPoP` header binds what the request obtains to the proof's key; the proof
     * must hold (§4.3) or the request is refused with invalid_dpop_proof (use_dpop_nonce when a
     * required nonce is missing, §8). Without the header the tokens are bearer tokens.
     */
    const dpopProof: Step<TokenRequestState> = step('dpop proof', async (state) => {
        const realm = required(state.realm, 'realm');
        state.dpopNonce = deps.dpop.nonceFor(realm.id);
        // FAPI 2.0 Security Profile §5.3.2.1 item 2: sender-constrained tokens, DPoP being the one we offer
        if (state.request.dpop.proof === undefined && profileOf(realm).requireDpop) {
            throw new AppError(ErrorCode.INVALID_DPOP_PROOF, 'The realm\'s FAPI 2.0 profile requires a DPoP proof (RFC 9449).');
        }
        state.dpopJkt = await proofKeyOf(deps.dpop, state.request.dpop, realm);
    });

    const runGrant: Step<TokenRequestState> = step('run grant', async (state) => {
        const grant = required(state.grant, 'grant');
        state.response = await grant.handle({
            db: deps.db, grantType: grant.type, realm: required(state.realm, 'realm'), client: state.client, params: state.params,
            ipAddress: state.request.ipAddress, userAgent: state.request.userAgent, dpopJkt: state.dpopJkt,
        });
    });

    const endpoint = protocolEndpoint<TokenEndpointRequest, TokenRequestState, TokenResponse>({
        start: (request) => ({ request, query: undefined, body: request.body, params: {}, grant: null, realm: null, client: null, response: null, dpopJkt: null, dpopNonce: null }),
        authenticate: [parseParameters, grantTypeSupported, resolveRealm, authenticate],
        // spec Limits: the client that proved its secret is charged, else the address
        charge: (state) => (state.client?.authenticated ? { kind: 'client', id: state.client.row.id } : 'address'),
        handle: [clientAllows, clientAuthenticationRequirement, grantParameters, dpopProof, runGrant],
        answer: (state) => required(state.response, 'response'),
    });
    return {
        ...endpoint,
        /** the `DPoP-Nonce` header of a handled request's answer (RFC 9449 §8.2), null for none */
        dpopNonce: (state: TokenRequestState): string | null => state.dpopNonce,
    };
}

export type TokenEndpoint = ReturnType<typeof createTokenEndpoint>;
