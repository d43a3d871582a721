/** The issuer of a realm: `<PUBLIC_URL>/realms/<realm name>` (API.md §4), the tokens' `iss`. */
export function issuerOf(publicUrl: string, realmName: string): string {
    return `${publicUrl.replace(/\/+$/, '')}/realms/${realmName}`;
}
