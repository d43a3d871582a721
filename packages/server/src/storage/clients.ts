import { isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { ClientTable, Database } from '../db/schema.js';
import { fromDbBool } from '../db/values.js';

/** A client as authentication sees it (spec Authentication rule 1, RFC 6749 §2.3). */
export interface ClientCredentials {
    id: string;
    realmId: string;
    active: boolean;
    /** plaintext, bcrypt hash, or `enc:` envelope; null for a public client */
    secret: string | null;
    secretHashed: boolean;
    /** JSON list of grant types, null = every grant but the device code */
    grantTypes: string | null;
    /** the policy every token issuance through the client must pass; null: none */
    accessPolicyId: string | null;
    /** id_token_signed_response_alg (OIDC Registration §2); null: RS256 */
    idTokenAlgorithm: string | null;
    /** token_endpoint_auth_method (OIDC Registration §2); null: a secret method with a secret, else none */
    tokenEndpointAuthMethod: string | null;
    /** the client's public keys: a JWK Set as JSON text, or where to fetch it (at most one is set) */
    jwks: string | null;
    jwksUri: string | null;
}

const CREDENTIAL_COLUMNS = [
    'id', 'realm_id', 'active', 'secret', 'secret_hashed', 'grant_types', 'access_policy_id', 'id_token_signed_response_alg',
    'token_endpoint_auth_method', 'jwks', 'jwks_uri',
] as const;
type CredentialRow = Pick<ClientTable, (typeof CREDENTIAL_COLUMNS)[number]>;

function credentialsOf(row: CredentialRow): ClientCredentials {
    return {
        id: row.id, realmId: row.realm_id, active: fromDbBool(row.active),
        secret: row.secret, secretHashed: fromDbBool(row.secret_hashed), grantTypes: row.grant_types,
        accessPolicyId: row.access_policy_id, idTokenAlgorithm: row.id_token_signed_response_alg,
        tokenEndpointAuthMethod: row.token_endpoint_auth_method, jwks: row.jwks, jwksUri: row.jwks_uri,
    };
}

/** The token endpoints' lookups (every client authentication), prepared once per dialect. */
const clientInRealmBy = (column: 'id' | 'name') => prepareQuery((db, param) => db.selectFrom('auth_clients').select(CREDENTIAL_COLUMNS)
    .where(column, '=', param(0)).where('realm_id', '=', param(1)));
const CLIENT_BY_ID_IN_REALM = clientInRealmBy('id');
const CLIENT_BY_NAME_IN_REALM = clientInRealmBy('name');

/** A client of the realm by id (a UUID in any case) or by name; undefined when there is none. */
export async function findClientInRealm(db: Kysely<Database>, realmId: string, idOrName: string): Promise<ClientCredentials | undefined> {
    // a NUL is never part of a name (and PostgreSQL refuses it in text)
    if (idOrName.includes('\u0000')) return undefined;
    const row = isUuid(idOrName) ?
        await CLIENT_BY_ID_IN_REALM.first(db, [idOrName.toLowerCase(), realmId]) :
        await CLIENT_BY_NAME_IN_REALM.first(db, [idOrName, realmId]);
    return row && credentialsOf(row);
}

/** A client of any realm by its id (lower-case UUID); undefined when there is none. */
export async function findClientById(db: Kysely<Database>, id: string): Promise<ClientCredentials | undefined> {
    const row = await db.selectFrom('auth_clients').select(CREDENTIAL_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && credentialsOf(row);
}
