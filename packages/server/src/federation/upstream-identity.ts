/** What a provider tells about a user after a verified login (OpenID Connect, OAuth 2.0 or LDAP). */
export interface UpstreamIdentity {
    /** the stable upstream subject: OIDC Core §2 `sub`, an OAuth 2.0 user id, an LDAP entry's DN */
    subject: string;
    /** the login name the user should get here, when the upstream has one */
    username: string | null;
    email: string | null;
    /** only an upstream that says so (OIDC Core §5.1 email_verified) */
    emailVerified: boolean;
    /** the claims (OIDC/OAuth 2.0) or entry attributes (LDAP) the attribute and role mappings read */
    claims: Readonly<Record<string, unknown>>;
    /** LDAP: the names of the groups groupFilter found (role mappings match them) */
    groups: readonly string[];
}

/** A directory or provider that could not be reached or answered wrongly: logins fail with a clear message. */
export class UpstreamUnavailableError extends Error {
    readonly code = 'upstream_unavailable';
}

/** A provider secret that cannot be opened (the realm's encryption key is disabled or gone; spec States). */
export class ProviderSecretUnavailableError extends Error {
    readonly code = 'provider_secret_unavailable';
}

/**
 * An upstream login whose address belongs to a local account it may not be linked to (account
 * pre-hijacking): the local address was never verified, or the upstream does not say it verified
 * its own, or several accounts share it. The sign-in is refused; no second account takes the address.
 */
export class AccountLinkRefusedError extends Error {
    readonly code = 'account_link_refused';
}
