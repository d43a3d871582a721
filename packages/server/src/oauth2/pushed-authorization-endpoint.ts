import { ErrorCode } from '@realmgate/core';
import type { RealmRef } from '../storage/realms.js';
import { pushRequest, type PushedRequestDeps } from './authorize/pushed-requests.js';
import { readAuthorizationParams } from './authorize/request.js';
import type { AuthorizationRequests } from './authorize/request-source.js';
import { assertProfileAdmitsClient, profileOf } from './security-profile.js';
import { authenticateClient, type ClientAuthDeps, type RequestClient } from './client-auth/authenticate.js';
import { invalidClient, invalidRequest, oauthError } from './errors.js';
import { protocolEndpoint, required, step, type Step } from './pipeline.js';
import { bodyCredentialsBesideBasic, parseParameters, presentedClientId, proofKeyOf, realmOfRequest } from './steps.js';
import type { DpopPresentation, DpopVerifier } from '../authn/dpop-proof.js';

export interface PushedAuthorizationRequest {
    body: unknown;
    authorization: string | undefined;
    /** the request's DPoP header, method and path (RFC 9449 §10.1) */
    dpop: DpopPresentation;
}

/** RFC 9126 §2.2 */
export interface PushedAuthorizationResponse {
    request_uri: string;
    expires_in: number;
}

export interface PushedAuthorizationDeps extends ClientAuthDeps, PushedRequestDeps {
    authorizationRequests: AuthorizationRequests;
    /** DPoP proofs sent with a pushed request (RFC 9449 §10.1) */
    dpop: DpopVerifier;
}

interface PushedRequestState {
    readonly request: PushedAuthorizationRequest;
    readonly query: undefined;
    readonly body: unknown;
    params: Record<string, string>;
    realm: RealmRef | null;
    client: RequestClient | null;
    /** the authorization parameters to push, once validated */
    pushed: Record<string, string> | null;
    /** whether a verified request object carried them (RFC 9126 §3) */
    signed: boolean;
    response: PushedAuthorizationResponse | null;
}

/**
 * `POST /par` without its transport (RFC 9126 §2), the token endpoint's style: parse parameters →
 * resolve realm (of the presented client) → authenticate client | (charged) | no request_uri →
 * the parameters validated as the authorization endpoint validates them → store the request.
 */
export function createPushedAuthorizationEndpoint(deps: PushedAuthorizationDeps) {
    const resolveRealm: Step<PushedRequestState> = step('resolve realm', async (state) => {
        state.realm = await realmOfRequest(deps.db, state.params, { credentialId: presentedClientId(state.params, state.request.authorization) }, deps.lookups);
    });

    /** RFC 9126 §2.1: the client authenticates as at the token endpoint; a public client names itself with client_id */
    const authenticate: Step<PushedRequestState> = step('authenticate client', async (state) => {
        const authorization = state.request.authorization;
        const client = await authenticateClient(deps, required(state.realm, 'realm').id, authorization, bodyCredentialsBesideBasic(state.params, authorization));
        if (!client) throw invalidClient('The pushed authorization request needs client authentication (RFC 9126 §2.1).');
        // a realm's security profile (FAPI 2.0) admits only the client authentication it names
        assertProfileAdmitsClient(profileOf(required(state.realm, 'realm')), client);
        state.client = client;
    });

    /** RFC 9126 §2.1: "request_uri ... MUST NOT be provided" in a pushed request */
    const noRequestUri: Step<PushedRequestState> = step('no request_uri', (state) => {
        if (state.params.request_uri !== undefined) throw invalidRequest('A pushed authorization request cannot carry request_uri (RFC 9126 §2.1).');
    });

    /** RFC 9126 §3: a request object's parameters are the request, the body's others are not */
    const parameters: Step<PushedRequestState> = step('authorization parameters', async (state) => {
        const clientId = required(state.client, 'client').row.id;
        if (state.params.request !== undefined) {
            const client = await deps.authorizationRequests.client(clientId);
            if (!client) throw invalidClient();
            const verified = await deps.authorizationRequests.requestObject(client, state.params.request);
            if (!verified.ok) throw oauthError(ErrorCode.INVALID_REQUEST_OBJECT, verified.message);
            state.pushed = { ...verified.params, client_id: clientId };
            state.signed = true;
            return;
        }
        // the client_id of the body, when present, named the client that authenticated (bodyCredentialsBesideBasic); it is stored by id
        state.pushed = { ...readAuthorizationParams(state.params).params, client_id: clientId };
    });

    /**
     * RFC 9449 §10.1: a DPoP proof sent with the push binds the code as `dpop_jkt` would; with both,
     * the proof's key must be the one dpop_jkt names, else the request is refused
     */
    const proofKey: Step<PushedRequestState> = step('dpop proof', async (state) => {
        const jkt = await proofKeyOf(deps.dpop, state.request.dpop, required(state.realm, 'realm'));
        if (jkt === null) return;
        const pushed = required(state.pushed, 'pushed parameters');
        if (pushed.dpop_jkt === undefined) pushed.dpop_jkt = jkt;
        else if (pushed.dpop_jkt !== jkt) throw oauthError(ErrorCode.INVALID_DPOP_PROOF, 'dpop_jkt does not name the key of the DPoP proof (RFC 9449 §10.1).');
    });

    /** RFC 9126 §2.3: an invalid request is answered as the authorization endpoint would, with the token endpoint's error body */
    const validate: Step<PushedRequestState> = step('validate authorization parameters', async (state) => {
        const client = await deps.authorizationRequests.client(required(state.client, 'client').row.id);
        if (!client) throw invalidClient();
        const validation = await deps.authorizationRequests.validatePushed(client, required(state.pushed, 'pushed parameters'), state.signed);
        if (validation.ok) return;
        if ('page' in validation) throw oauthError(validation.page.error, validation.page.message);
        const { error, error_description: description } = validation.redirect.params;
        throw oauthError(error as ErrorCode, description ?? 'The authorization request is invalid.');
    });

    const store: Step<PushedRequestState> = step('store pushed request', async (state) => {
        const client = required(state.client, 'client').row;
        state.response = await pushRequest(deps, { realmId: client.realmId, clientId: client.id }, { params: required(state.pushed, 'pushed parameters'), signed: state.signed });
    });

    return protocolEndpoint<PushedAuthorizationRequest, PushedRequestState, PushedAuthorizationResponse>({
        start: (request) => ({ request, query: undefined, body: request.body, params: {}, realm: null, client: null, pushed: null, signed: false, response: null }),
        authenticate: [parseParameters, resolveRealm, authenticate],
        // spec Limits: the client that proved its secret is charged, else the address
        charge: (state) => (state.client?.authenticated ? { kind: 'client', id: state.client.row.id } : 'address'),
        handle: [noRequestUri, parameters, proofKey, validate, store],
        answer: (state) => required(state.response, 'response'),
    });
}

export type PushedAuthorizationEndpoint = ReturnType<typeof createPushedAuthorizationEndpoint>;
