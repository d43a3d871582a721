import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { isCanonicalUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { SigningAlgorithm } from '../../keys/material.js';
import { findSigningKeyMaterial } from '../../storage/keys.js';
import { findRealmById } from '../../storage/realms.js';
import { ID_TOKEN_KIND } from '../../tokens/claims.js';
import { issuerOf } from '../../tokens/issuer.js';
import { decodeJws, verifyJws } from '../../tokens/jws.js';

/** What a verified id_token_hint tells the logout endpoint. */
export interface IdTokenHint {
    /** the audience: the client the ID token was issued to */
    clientId: string;
    sub: string;
    /** the session the ID token belongs to (OIDC Back-Channel Logout §2.4 `sid`) */
    sid: string | null;
    realmId: string;
}

/**
 * OIDC RP-Initiated Logout 1.0 §2 and §4: the id_token_hint is an ID token this server issued —
 * signed by a signing key of the realm it names, `kind` id_token, `iss` that realm's issuer — and
 * it may have expired ("the OP need not be concerned with whether the ID Token has expired").
 * Null for anything else.
 */
export async function verifyIdTokenHint(db: Kysely<Database>, publicUrl: string, token: string): Promise<IdTokenHint | null> {
    const decoded = decodeJws(token);
    const kid = decoded?.header.kid;
    if (!decoded || typeof kid !== 'string' || !isCanonicalUuid(kid)) return null;
    const claims = decoded.payload;
    if (claims.kind !== ID_TOKEN_KIND || typeof claims.realm_id !== 'string' || typeof claims.sub !== 'string' || typeof claims.aud !== 'string') return null;
    const key = await findSigningKeyMaterial(db, kid);
    if (!key?.publicKey || key.realmId !== claims.realm_id) return null;
    const publicKey = createPublicKey({ key: JSON.parse(key.publicKey) as JsonWebKey, format: 'jwk' });
    if (!verifyJws(key.algorithm as SigningAlgorithm, publicKey, decoded)) return null;
    const realm = await findRealmById(db, claims.realm_id);
    if (!realm || claims.iss !== issuerOf(publicUrl, realm.name)) return null;
    return { clientId: claims.aud, sub: claims.sub, sid: typeof claims.sid === 'string' ? claims.sid : null, realmId: realm.id };
}
