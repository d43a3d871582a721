import { ErrorCode, MASTER_REALM, isUuid } from '@realmgate/core';
import type { PolicyIdentity } from '@realmgate/access';
import type { Kysely } from 'kysely';
import type { Actor } from './actor.js';
import type { Database } from '../db/schema.js';
import { findClientById, findClientInRealm, type ClientCredentials } from '../storage/clients.js';
import { findRealmById, findRealmByName } from '../storage/realms.js';
import { findUserById, findUserInRealm, type UserCredentials } from '../storage/users.js';
import { DUMMY_BCRYPT_HASH, type PasswordHasher } from '../secrets/passwords.js';
import { AppError } from '../errors/app-error.js';
import { failedAuthentication } from '../limits/failed-authentication.js';
import type { ClientSecretVerifier } from '../secrets/client-secret-verifier.js';
import { decodeBasicRfc7617 } from './basic-credentials.js';
import { holdsConfirmedAuthenticator } from './second-factor.js';
import { findRealmMfaSettings, isEmailVerified } from '../storage/authenticators.js';
import type { DialectName } from '../db/values.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { OutboundPolicy } from '../outbound/address-policy.js';
import { verifyPasswordLogin } from './password-login.js';

export interface AuthenticationDeps {
    db: Kysely<Database>;
    handle: { dialect: DialectName };
    passwords: PasswordHasher;
    secrets: SecretBox;
    clientSecrets: ClientSecretVerifier;
    /** the hosts an LDAP directory may be reached at (authn/password-login.ts) */
    outbound: OutboundPolicy;
    /** USER_AUTH_BASIC (spec Authentication 1 and 6); Basic user credentials are accepted when absent */
    config?: { userAuthBasic: boolean };
}

function invalidCredentials(): AppError {
    return new AppError(ErrorCode.INVALID_CREDENTIALS, 'The credentials are invalid.', { statusCode: 401 });
}

interface Candidate {
    user?: UserCredentials;
    client?: ClientCredentials;
}

/**
 * Spec Authentication rule 5: an id works on any route; a NAME is looked up in the route realm and
 * then the master realm under /realms/<realm>/…, and in the master realm alone elsewhere.
 */
async function candidates(db: Kysely<Database>, name: string, routeRealmId: string | null): Promise<Candidate[]> {
    if (isUuid(name)) {
        const id = name.toLowerCase();
        const [user, client] = await Promise.all([findUserById(db, id), findClientById(db, id)]);
        return [{ ...(user ? { user } : {}), ...(client ? { client } : {}) }];
    }
    const master = await findRealmByName(db, MASTER_REALM);
    const realms = [routeRealmId, master?.id ?? null].filter((id, index, all): id is string => id !== null && all.indexOf(id) === index);
    const found: Candidate[] = [];
    for (const realmId of realms) {
        const [user, client] = await Promise.all([findUserInRealm(db, realmId, name), findClientInRealm(db, realmId, name)]);
        if (user || client) {
            // the route realm holds the name: it never falls through to master on a wrong secret
            found.push({ ...(user ? { user } : {}), ...(client ? { client } : {}) });
            break;
        }
    }
    return found;
}

/** HTTP Basic with a user or client name or id (spec Authentication rule 1). */
export async function authenticateBasic(deps: AuthenticationDeps, header: string, routeRealmId: string | null): Promise<Actor> {
    const credentials = decodeBasicRfc7617(header);
    if (!credentials) throw invalidCredentials();
    let identity: PolicyIdentity | null = null;
    let inactive = false;
    /** a user's right password while it is inactive: answered as a wrong one, but not counted (spec Limits) */
    let inactiveUser = false;
    /** whether a bcrypt-cost verification ran: every refusal must cost one, or timing tells known names apart */
    let costly = false;
    const passwordLogin = { db: deps.db, dialect: deps.handle.dialect, passwords: deps.passwords, secrets: deps.secrets, outbound: deps.outbound };
    let unavailable = false;
    /** a user's password, by the source that verifies it (authn/password-login.ts: local, else the realm's LDAP directories) */
    const userLogin = async (realmId: string, local: UserCredentials | undefined): Promise<void> => {
        costly = true;
        const result = await verifyPasswordLogin(passwordLogin, realmId, local, credentials.name, credentials.secret);
        if (result.unavailable) unavailable = true;
        else if (result.user) identity = { id: result.user.id, type: 'user', realmId, realmName: null, clientId: null };
        else if (!result.failed) inactiveUser = true;
    };
    const found = await candidates(deps.db, credentials.name, routeRealmId);
    for (const candidate of found) {
        if (candidate.user) await userLogin(candidate.user.realmId, candidate.user);
        if (!identity && candidate.client?.secret) {
            if (candidate.client.secretHashed) costly = true;
            if (await deps.clientSecrets.verify(candidate.client, credentials.secret)) {
                if (!candidate.client.active) inactive = true;
                else identity = { id: candidate.client.id, type: 'client', realmId: candidate.client.realmId, realmName: null, clientId: candidate.client.id };
            }
        }
        if (identity) break;
    }
    // a name no local identity holds may be a directory's user: the route realm's directories, else master's
    if (!identity && found.length === 0 && !isUuid(credentials.name)) {
        const realmId = routeRealmId ?? (await findRealmByName(deps.db, MASTER_REALM))?.id;
        if (realmId) await userLogin(realmId, undefined);
    }
    if (!identity && unavailable) {
        throw new AppError(ErrorCode.TEMPORARILY_UNAVAILABLE, 'The directory that verifies this account could not be reached; try again later.', { statusCode: 503 });
    }
    // an unknown name, or a known client whose plain or encrypted secret was wrong, pays the same
    // bcrypt verification a hashed secret costs (no enumeration by timing)
    if (!identity && !costly) await deps.passwords.verify(credentials.secret, DUMMY_BCRYPT_HASH);
    if (identity?.type === 'user' && deps.config?.userAuthBasic === false) {
        // the password was verified like any other (same cost); right or wrong, Basic is no way in for a user
        // here — not a failed authentication, so a script using it is told why instead of being locked out
        throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Basic authentication with user credentials is turned off (USER_AUTH_BASIC); obtain a token through POST /token.', { statusCode: 401 });
    }
    // a client's secret is no guessable password: an inactive client is said so
    if (inactive && !identity) throw new AppError(ErrorCode.ENTITY_INACTIVE, 'The account is inactive.', { statusCode: 401 });
    // a user's is: its right password while inactive must not be told from a wrong one
    if (inactiveUser && !identity) throw invalidCredentials();
    // spec Limits: a wrong Basic password (or an unknown name) counts toward the address's failures
    if (!identity) throw failedAuthentication(invalidCredentials(), { realmId: routeRealmId, refType: 'identity', refId: null });
    if (identity.type === 'user' && identity.realmId) await refuseBasicBeforeSignInRules(deps.db, identity.realmId, identity.id);
    identity.realmName = identity.realmId ? (await findRealmById(deps.db, identity.realmId))?.name ?? null : null;
    // Basic is never narrowed to a client (spec Authentication rule 8)
    return { identity, tokenClientId: null, method: 'basic' };
}

/**
 * Spec Authentication rule 6: with multi-factor on in the user's realm, Basic user credentials are
 * refused for a user holding a confirmed authenticator — a password alone would bypass the second
 * factor; such a script authenticates as a confidential client. Not a failed authentication: the
 * password was right.
 */
async function refuseBasicBeforeSignInRules(db: Kysely<Database>, realmId: string, userId: string): Promise<void> {
    const settings = await findRealmMfaSettings(db, realmId);
    // API.md §7 emailVerificationRequired: no way in before the address is verified, Basic included
    if (settings?.emailVerificationRequired && !(await isEmailVerified(db, userId))) {
        throw new AppError(ErrorCode.ENTITY_INACTIVE, 'The email address of this account is not verified yet: follow the activation link.', { statusCode: 401 });
    }
    if (!settings?.enabled || !(await holdsConfirmedAuthenticator(db, userId))) return;
    throw new AppError(ErrorCode.MFA_REQUIRED,
        'Basic authentication is refused for a user with multi-factor sign-in: obtain a token through POST /token (password, then the mfa-otp grant).',
        { statusCode: 401 });
}
