/**
 * The query vocabulary of `/user-authenticators` for the bulk `GET /schemas` (spec "Schema and
 * statistics facets": the bulk description covers the user authenticator; it has no `@schema` of
 * its own). It is not an engine resource: a list takes `userId` only, and the seed is never read.
 */
export function describeAuthenticators() {
    const field = (name: string, type: string, extra: Record<string, unknown> = {}) => ({ name, type, ...extra, filterable: false, sortable: false, withheld: false });
    return {
        name: 'user_authenticator',
        collection: 'user-authenticators',
        realm: 'required',
        fields: [
            field('id', 'uuid'), field('type', 'enum', { values: ['totp', 'webauthn'] }), field('name', 'string'), field('confirmed', 'boolean'),
            field('userId', 'uuid'), field('realmId', 'uuid'), field('createdAt', 'date'), field('updatedAt', 'date'),
            // a passkey's (API.md §8 type `webauthn`)
            field('transports', 'stringList'), field('aaguid', 'string'), field('lastUsedAt', 'date'),
        ],
        parameters: [{ name: 'userId', type: 'uuid', description: 'the user whose authenticators are listed; the caller by default' }],
        relations: [],
        statistic: false,
    };
}
