import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { browserWorld, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { federatedSignIn as signInThroughPages, startOidcUpstream, type OidcUpstream } from '../../oidc-upstream.js';
import { fromDbBool } from '../../../src/db/values.js';

/*
 * How an upstream OpenID Connect login meets the realm's local accounts: linking by email (account
 * pre-hijacking, OWASP ASVS V6 / "Pre-hijacked accounts", Sudhodanan & Paverd 2022: an address
 * somebody registered without proving it never receives an upstream login) and an attribute
 * mapping that writes the address (the upstream's email_verified travels with it, OIDC Core §5.1;
 * a code mailed to the old address is void, as on any email change). The upstream is a real
 * oidc-provider on loopback; the browser is app.inject with a cookie jar, and fetch at the upstream.
 */
describeEachDialect('identity providers: OpenID Connect logins and local accounts', (dialect) => {
    const app = useTestApp(dialect);
    let upstream: OidcUpstream;
    let world: BrowserWorld;
    /** claims per upstream login name, read at each login (a test changes them between logins) */
    const accounts: Record<string, Record<string, unknown>> = {};

    beforeAll(async () => {
        world = await browserWorld(app);
        upstream = await startOidcUpstream(`${app.deps.config.publicUrl}/authorize/federated/callback`, { accounts });
    });
    afterAll(async () => upstream?.close());

    const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

    async function createProvider(extra: Record<string, unknown> = {}): Promise<string> {
        return (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                realmId: world.realmId, name: unique('upstream'), protocol: 'oidc', issuer: upstream.issuer,
                clientId: upstream.clientId, clientSecret: upstream.clientSecret, ...extra,
            },
        }, 201)).data.id;
    }

    const federatedSignIn = (providerId: string, login: string) => signInThroughPages(app, world, providerId, login);

    const linksOf = (providerId: string) => app.deps.db.selectFrom('auth_user_identities').selectAll().where('provider_id', '=', providerId).execute();
    const usersWithAddress = async (email: string) => (await app.deps.db.selectFrom('auth_users').select(['id', 'email'])
        .where('realm_id', '=', world.realmId).execute()).filter((row) => row.email?.toLowerCase() === email.toLowerCase());
    const createLocalUser = async (email: string, emailVerified: boolean) => (await app.json<{ data: { id: string } }>({
        method: 'POST', url: '/users', payload: { realmId: world.realmId, name: unique('local'), email, emailVerified, password: 'local-password-123' },
    }, 201)).data.id;

    it('refuses to link an upstream login to a local account whose address was never verified, and creates no second account with it', async () => {
        const providerId = await createProvider({ linkVerifiedEmail: true });
        const login = unique('victim');
        const address = `${login}@upstream.test`;
        // the attacker registered first with the victim's address, which they cannot verify
        const attacker = await createLocalUser(address.toUpperCase(), false);
        const answer = await federatedSignIn(providerId, login);
        expect(answer.statusCode, answer.body).toBe(409);
        expect(answer.body).toContain('already exists');
        expect(await linksOf(providerId)).toHaveLength(0);
        expect((await usersWithAddress(address)).map((row) => row.id)).toEqual([attacker]);
        expect(answer.headers['set-cookie'] ?? '').not.toContain('realmgate_session=');
    });

    it('links an upstream login to the local account whose verified address matches, compared case-normalised', async () => {
        const providerId = await createProvider({ linkVerifiedEmail: true });
        const login = unique('owner');
        const local = await createLocalUser(`${login.toUpperCase()}@Upstream.Test`, true);
        const answer = await federatedSignIn(providerId, login);
        expect(answer.statusCode, answer.body).toBeLessThan(400);
        expect((await linksOf(providerId)).map((row) => [row.user_id, row.subject])).toEqual([[local, login]]);
        expect((await usersWithAddress(`${login}@upstream.test`)).map((row) => row.id)).toEqual([local]);
    });

    it('refuses to link when the upstream does not say the address is verified, and creates no second account with it', async () => {
        const providerId = await createProvider({ linkVerifiedEmail: true });
        const login = unique('unproven');
        const address = `${login}@upstream.test`;
        accounts[login] = { email_verified: false };
        const local = await createLocalUser(address, true);
        const answer = await federatedSignIn(providerId, login);
        expect(answer.statusCode, answer.body).toBe(409);
        expect(await linksOf(providerId)).toHaveLength(0);
        expect((await usersWithAddress(address)).map((row) => row.id)).toEqual([local]);
    });

    it('an email → email mapping takes the upstream\'s email_verified and voids the activation and reset codes of the old address', async () => {
        const providerId = await createProvider();
        await app.json({ method: 'POST', url: '/identity-provider-attribute-mappings', payload: { providerId, source: 'email', target: 'field', targetName: 'email' } }, 201);
        const login = unique('mover');
        expect((await federatedSignIn(providerId, login)).statusCode).toBeLessThan(400);
        const [link] = await linksOf(providerId);
        const before = await app.deps.db.selectFrom('auth_users').selectAll().where('id', '=', link!.user_id).executeTakeFirstOrThrow();
        expect(before.email).toBe(`${login}@upstream.test`);
        expect(fromDbBool(before.email_verified)).toBe(true);
        // codes mailed to the first address (a recovery and an activation link in flight)
        await app.deps.db.updateTable('auth_users').set({ reset_hash: 'reset-digest', activate_hash: 'activation-digest', reset_at: before.updated_at, activate_at: before.updated_at })
            .where('id', '=', before.id).execute();

        // the upstream now tells another address, one it says it has not verified
        accounts[login] = { email: `${login}@elsewhere.test`, email_verified: false };
        expect((await federatedSignIn(providerId, login)).statusCode).toBeLessThan(400);
        const after = await app.deps.db.selectFrom('auth_users').selectAll().where('id', '=', before.id).executeTakeFirstOrThrow();
        expect(after.email).toBe(`${login}@elsewhere.test`);
        expect(fromDbBool(after.email_verified)).toBe(false);
        expect(after).toMatchObject({ reset_hash: null, reset_at: null, activate_hash: null, activate_at: null });

        // a later login where the upstream vouches for it verifies it again
        accounts[login] = { email: `${login}@elsewhere.test`, email_verified: true };
        expect((await federatedSignIn(providerId, login)).statusCode).toBeLessThan(400);
        const verified = await app.deps.db.selectFrom('auth_users').select('email_verified').where('id', '=', before.id).executeTakeFirstOrThrow();
        expect(fromDbBool(verified.email_verified)).toBe(true);
    });
});
