/** The issuer of a realm: `<PUBLIC_URL>/realms/<realm name>` (API.md §4), the tokens' `iss`. */
export function issuerOf(publicUrl: string, realmName: string): string {
    return `${publicUrl.replace(/\/+$/, '')}/realms/${realmName}`;
}

/**
 * RFC 9068 §2.2: the `aud` of a realm's access tokens narrowed to no resource (RFC 8707) — its
 * `defaultAudience`, else its issuer, which stands for every resource server of the realm.
 */
export function defaultAudienceOf(publicUrl: string, realm: { name: string; defaultAudience?: string | null | undefined }): string {
    return realm.defaultAudience || issuerOf(publicUrl, realm.name);
}
