import { InsertQueryNode, type KyselyPlugin, type QueryId } from 'kysely';
import { expect, it } from 'vitest';
import { bootstrap } from '../../src/provisioning/bootstrap.js';
import { ADMIN, basicHeader, useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

/** Stands for `kill -9` right after the statement that inserts a user: the boot dies there. */
function crashAfterUserInsert(): KyselyPlugin {
    const userInserts = new Set<QueryId>();
    return {
        transformQuery({ node, queryId }) {
            if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'auth_users') userInserts.add(queryId);
            return node;
        },
        async transformResult({ result, queryId }) {
            if (userInserts.has(queryId)) throw new Error('killed after the user insert');
            return result;
        },
    };
}

describeEachDialect('bootstrap survives a crash (bootstrap is atomic)', (dialect) => {
    const app = useTestApp(dialect);

    it('a boot that finds the bootstrap admin without a password (a first boot killed mid-way) sets the configured one', async () => {
        const { db } = app.deps;
        await db.updateTable('auth_users').set({ password: null }).where('name', '=', ADMIN.name).execute();
        expect((await app.request({ method: 'GET', url: '/realms', as: basicHeader(ADMIN.name, ADMIN.password) })).statusCode).toBe(401);
        await bootstrap(app.deps);
        expect((await app.request({ method: 'GET', url: '/realms', as: basicHeader(ADMIN.name, ADMIN.password) })).statusCode).toBe(200);
    });

    it('a first boot killed right after inserting the admin leaves it with its password', async () => {
        const name = 'admin-crash-insert';
        const config = { ...app.deps.config, userAdmin: { ...app.deps.config.userAdmin, name, password: 'crash-pass-1' } };
        await expect(bootstrap({ ...app.deps, config, db: app.deps.db.withPlugin(crashAfterUserInsert()) })).rejects.toThrow('killed after the user insert');
        const row = await app.deps.db.selectFrom('auth_users').select('password').where('name', '=', name).executeTakeFirstOrThrow();
        expect(row.password).not.toBeNull();
        expect(await app.deps.passwords.verify('crash-pass-1', row.password!)).toBe(true);
    });

    it('a first boot killed while hashing leaves no admin row behind', async () => {
        const name = 'admin-crash-hash';
        const config = { ...app.deps.config, userAdmin: { ...app.deps.config.userAdmin, name, password: 'crash-pass-2' } };
        const passwords = { ...app.deps.passwords, hash: () => Promise.reject(new Error('killed while hashing')) };
        await expect(bootstrap({ ...app.deps, config, passwords })).rejects.toThrow('killed while hashing');
        expect(await app.deps.db.selectFrom('auth_users').select('id').where('name', '=', name).executeTakeFirst()).toBeUndefined();
    });
});
