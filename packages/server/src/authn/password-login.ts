import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { ldapLogin } from '../federation/ldap.js';
import { provisionUser } from '../federation/provision.js';
import { AccountLinkRefusedError, ProviderSecretUnavailableError, UpstreamUnavailableError } from '../federation/upstream-identity.js';
import { DUMMY_BCRYPT_HASH, type PasswordHasher } from '../secrets/passwords.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { OutboundPolicy } from '../outbound/address-policy.js';
import { findSignInUserById, type SignInUser } from '../storage/authorize-lookups.js';
import { listEnabledProviders, type ProviderRow } from '../storage/identity-providers.js';

export interface PasswordLoginDeps {
    db: Kysely<Database>;
    dialect: DialectName;
    passwords: PasswordHasher;
    secrets: SecretBox;
    /** LDAP connections go only to an address this policy admits (OUTBOUND_ALLOWED_HOSTS) */
    outbound: OutboundPolicy;
}

/** The local user a caller found for the login name (its own lookup rules), if any. */
export interface LocalCandidate {
    id: string;
    password: string | null;
    active: boolean;
}

/**
 * null user: refused. `failed`: a failed authentication (counted toward the address's failures);
 * `unavailable`: no source could decide (a directory unreachable within its timeout, a provider
 * secret that cannot be opened) — a clear error, not a wrong password.
 */
export interface PasswordLoginResult {
    user: SignInUser | null;
    failed: boolean;
    unavailable?: string;
    /** the identity provider that verified the password */
    providerId?: string;
}

/** The bind password of a provider, opened under the realm's encryption key (spec States: a disabled key fails the login). */
export async function openProviderSecret(secrets: SecretBox, db: Kysely<Database>, stored: string | null): Promise<string | null> {
    if (stored === null || !secrets.isEnvelope(stored)) return stored;
    try {
        return await secrets.decrypt(db, stored);
    } catch {
        throw new ProviderSecretUnavailableError('The secret of this identity provider cannot be opened: the realm encryption key is disabled or gone.');
    }
}

async function directoryLogin(deps: PasswordLoginDeps, providers: ProviderRow[], login: string, password: string): Promise<PasswordLoginResult> {
    let unavailable: string | undefined;
    for (const provider of providers) {
        try {
            const bindPassword = provider.bind_dn ? await openProviderSecret(deps.secrets, deps.db, provider.bind_password) : null;
            const identity = await ldapLogin(provider, bindPassword, login, password, deps.outbound);
            if (!identity) continue;
            const { userId } = await provisionUser({ db: deps.db, dialect: deps.dialect }, provider, identity);
            const user = await findSignInUserById(deps.db, provider.realm_id, userId);
            // a linked user deactivated here stays refused, like a local one (not a failed authentication)
            if (!user?.active) return { user: null, failed: false };
            return { user, failed: false, providerId: provider.id };
        } catch (error) {
            // the entry's address belongs to a local account it may not be linked to (federation/provision.ts): refused, not a wrong password
            if (error instanceof AccountLinkRefusedError) return { user: null, failed: false };
            if (!(error instanceof UpstreamUnavailableError || error instanceof ProviderSecretUnavailableError)) throw error;
            unavailable = error.message;
        }
    }
    // a directory that could not answer is never reported as a wrong password
    return unavailable ? { user: null, failed: false, unavailable } : { user: null, failed: true };
}

/**
 * Which source verifies a password (the local one, else the realm's LDAP directories): the one place the sign-in form, the password
 * grant and Basic decide it. A local user with a password is verified here by bcrypt, and only
 * here — a directory never overrides a local password. Otherwise (no local user, or one without a
 * password, such as a user an LDAP login created) the realm's enabled LDAP providers are tried in
 * order by name; the first that binds the user signs them in as the user linked to the entry.
 * Every refusal pays one bcrypt verification, so timing does not tell known names apart.
 */
export async function verifyPasswordLogin(deps: PasswordLoginDeps, realmId: string, local: LocalCandidate | undefined, login: string, password: string): Promise<PasswordLoginResult> {
    if (local?.password) {
        // an inactive account's password is verified in full every time (never remembered), so a
        // right one takes as long as a wrong one; callers answer both alike (RFC 6749 §5.2)
        const valid = local.active ?
            await deps.passwords.verify(password, local.password) :
            await deps.passwords.verify(password, local.password, { remember: false });
        if (!valid) return { user: null, failed: true };
        if (!local.active) return { user: null, failed: false };
        const user = await findSignInUserById(deps.db, realmId, local.id);
        // right credentials of an inactive user: refused, but not a failed authentication (spec Limits)
        if (!user?.active) return { user: null, failed: false };
        return { user, failed: false };
    }
    const providers = await listEnabledProviders(deps.db, realmId, ['ldap']);
    if (providers.length > 0) {
        const result = await directoryLogin(deps, providers, login, password);
        if (result.user || result.unavailable) return result;
        if (!result.failed) return result;
    }
    await deps.passwords.verify(password, DUMMY_BCRYPT_HASH);
    return { user: null, failed: true };
}
