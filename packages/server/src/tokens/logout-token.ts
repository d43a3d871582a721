import { randomUUID } from 'node:crypto';
import { TokenKind } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { KeyStore } from '../keys/store.js';
import { idTokenAlgorithmOf } from './claims.js';
import { issuerOf } from './issuer.js';
import { signJws } from './jws.js';
import { createSigner } from './signer.js';

/** Back-Channel Logout 1.0 §2.4: the event member that makes a JWT a logout token. */
const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** §2.4: the `typ` header that keeps a logout token from being taken for another JWT (RFC 8725 §3.11). */
const LOGOUT_TOKEN_TYPE = 'logout+jwt';
/** §2.4 asks for a short lifetime: the token is delivered at once or not at all (seconds) */
const LOGOUT_TOKEN_LIFETIME = 120;

export interface LogoutTokenRequest {
    realmId: string;
    realmName: string;
    /** the audience: the client that received tokens in the ended session */
    clientId: string;
    /** the user whose session ended */
    sub: string;
    /** the ended session: the `sid` its ID tokens carry */
    sessionId: string;
    /** the client's registered ID token algorithm (Back-Channel Logout §2.4: signed like its ID tokens) */
    idTokenAlgorithm: string | null;
}

export type LogoutTokenIssuer = (db: Kysely<Database>, request: LogoutTokenRequest) => Promise<string>;

/**
 * Back-Channel Logout 1.0 §2.4: iss, aud, iat, exp, jti, sub, sid and events, never a nonce (§2.4:
 * its absence tells a logout token from an ID token), typ `logout+jwt`, signed like the ID token
 * (RS256 by the realm's key unless the client registered ES256, verifiable against the realm's JWKS). Its kind `logout_token` is one
 * no endpoint accepts: bearer authentication and revocation take access tokens, introspection
 * access and refresh tokens (tokens/verifying.ts), spec Events 6.
 */
export function createLogoutTokenIssuer(keys: KeyStore, publicUrl: string): LogoutTokenIssuer {
    const signer = createSigner(keys);
    return async (db, request) => {
        const { kid, algorithm, key } = await signer(db, request.realmId, idTokenAlgorithmOf(request.idTokenAlgorithm));
        const iat = Math.floor(Date.now() / 1000);
        const claims = {
            iss: issuerOf(publicUrl, request.realmName),
            aud: request.clientId,
            iat,
            exp: iat + LOGOUT_TOKEN_LIFETIME,
            jti: randomUUID(),
            sub: request.sub,
            sid: request.sessionId,
            events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
            kind: TokenKind.LOGOUT_TOKEN,
            realm_id: request.realmId,
        };
        return signJws(algorithm, kid, claims, key, LOGOUT_TOKEN_TYPE);
    };
}
