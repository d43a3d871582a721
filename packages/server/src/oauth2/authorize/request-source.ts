import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { issuerOf } from '../../tokens/issuer.js';
import type { ClientKeys } from '../client-keys.js';
import { verifyRequestObject } from './request-object.js';
import type { AuthorizationClient } from '../../storage/authorize-lookups.js';
import type { BoundedCache } from '../../cache/bounded-cache.js';
import { CARRIED_FIELD, openRequest, sealRequest } from './carried-request.js';
import { PUSHED_REQUEST_URI_PREFIX, redeemPushedRequest } from './pushed-requests.js';
import {
    findRequestClient, pageError, readAuthorizationParams, validateAuthorizationParameters, type RequestOrigin, type Validation,
} from './request.js';

export interface AuthorizationRequestDeps {
    db: Kysely<Database>;
    dialect: DialectName;
    publicUrl: string;
    secrets: SecretBox;
    /** epoch milliseconds: pushed requests' and carried requests' lifetimes, request objects' exp (a controllable clock in tests) */
    clock: () => number;
    /** the clients' public keys, for their request objects (RFC 9101 §6.2) */
    clientKeys: ClientKeys;
    /** the clients requests name, remembered (wire.ts empties it with every client and realm write); absent: every lookup reads */
    clients?: BoundedCache<AuthorizationClient>;
}

const PLAIN: RequestOrigin = { pushed: false, signed: false };

/** A single string member of a query or form, else undefined. */
function member(source: unknown, name: string): string | undefined {
    if (typeof source !== 'object' || source === null) return undefined;
    const value = (source as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
}

function present(source: unknown, name: string): boolean {
    return typeof source === 'object' && source !== null && (source as Record<string, unknown>)[name] !== undefined;
}

/**
 * The authorization endpoint's requests, from whichever source carries their parameters: the query
 * or form itself; a request object by value (RFC 9101), verified; a pushed request's reference
 * (RFC 9126 §4), redeemed once; a form carrying a request already redeemed or verified
 * (carried-request.ts). Then one validation
 * (oauth2/authorize/request.ts) for all of them, and for `POST /par` (RFC 9126 §2.1: the pushed
 * parameters are validated as the authorization endpoint validates them).
 */
export function createAuthorizationRequests(deps: AuthorizationRequestDeps) {
    const carriedAs = (client: AuthorizationClient, origin: RequestOrigin) => (params: Record<string, string>) =>
        (origin.pushed || origin.signed ? sealRequest(deps, client.realm.id, client.id, params, origin) : Promise.resolve(params));

    /** RFC 9101 §6.3: a request object by value, verified for the client the outer client_id names */
    const requestObject = (client: AuthorizationClient, jwt: string | undefined) => (jwt === undefined ?
        Promise.resolve({ ok: false as const, message: 'request must be sent once.' }) :
        verifyRequestObject(deps, client, issuerOf(deps.publicUrl, client.realm.name), jwt));

    /** The parameters the request stands for and where they came from; a page error when its source is refused. */
    async function resolve(source: unknown, client: AuthorizationClient): Promise<{ params: Record<string, string>; repeated: readonly string[]; origin: RequestOrigin } | Validation> {
        const carried = member(source, CARRIED_FIELD);
        if (carried !== undefined) {
            const opened = await openRequest(deps, carried, client.id);
            return opened ? { ...opened, repeated: [] } : pageError('The authorization request has expired; start again from the application.', client.realm);
        }
        if (present(source, 'request_uri')) {
            const requestUri = member(source, 'request_uri');
            // RFC 9126 §4 and OIDC Core §6.2: only this server's own references are accepted; any other URI is not fetched
            if (requestUri === undefined || !requestUri.startsWith(PUSHED_REQUEST_URI_PREFIX)) {
                return pageError('request_uri must be a reference answered by the pushed authorization request endpoint.', client.realm, ErrorCode.REQUEST_URI_NOT_SUPPORTED);
            }
            const redeemed = await redeemPushedRequest(deps, requestUri, client.id);
            // RFC 9126 §7.3: unknown, spent, expired or another client's reference alike
            if (!redeemed) return pageError('The request_uri is unknown, expired or already used.', client.realm, ErrorCode.INVALID_REQUEST_URI);
            return { ...redeemed, repeated: [] };
        }
        if (present(source, 'request')) {
            const verified = await requestObject(client, member(source, 'request'));
            if (!verified.ok) return pageError(verified.message, client.realm, ErrorCode.INVALID_REQUEST_OBJECT);
            return { params: verified.params, repeated: [], origin: { pushed: false, signed: true } };
        }
        return { ...readAuthorizationParams(source), origin: PLAIN };
    }

    return {
        /** `GET`/`POST /authorize`, the API form, the forms that resume a request and an upstream round trip's return. */
        async validate(source: unknown): Promise<Validation> {
            const { repeated } = readAuthorizationParams(source);
            if (repeated.includes('client_id')) return pageError('client_id must be sent once.');
            const clientId = member(source, 'client_id');
            if (!clientId) return pageError('client_id is required.');
            const client = await findRequestClient(deps.db, clientId, deps.clients);
            if (!client) return pageError('The client is unknown or inactive.');
            const resolved = await resolve(source, client);
            if ('ok' in resolved) return resolved;
            // RFC 9126 §4 and RFC 9101 §5: the parameters inside the reference or object are the request; client_id must be the same
            if ((resolved.origin.pushed || resolved.origin.signed) && resolved.params.client_id !== client.id) return pageError('client_id does not match the request.', client.realm);
            return validateAuthorizationParameters(deps.db, deps.publicUrl, client, resolved, resolved.origin, carriedAs(client, resolved.origin));
        },
        /** The active client a request names by id (`POST /par`: the client that authenticated), through the remembered clients. */
        client: (clientId: string) => findRequestClient(deps.db, clientId, deps.clients),
        /** `POST /par` with `request` (RFC 9126 §3): the object verified as at the authorization endpoint */
        requestObject,
        /** `POST /par`: the pushed parameters validated for the client that authenticated (their requirements met by pushing). */
        validatePushed(client: AuthorizationClient, params: Record<string, string>, signed: boolean): Promise<Validation> {
            return validateAuthorizationParameters(deps.db, deps.publicUrl, client, { params, repeated: [] }, { pushed: true, signed }, (checked) => Promise.resolve(checked));
        },
    };
}

export type AuthorizationRequests = ReturnType<typeof createAuthorizationRequests>;
