import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import { expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createSecretBox } from '../../src/secrets/secret-box.js';
import { createRealm } from '../actors.js';
import { basicHeader, useTestApp } from '../app.js';
import { migrateToLatest, migrationStatus } from '../../src/db/migrate.js';
import { createTestDatabase, describeEachDialect } from '../databases.js';

describeEachDialect('boot: key wrapping and the production warning', (dialect) => {
    const app = useTestApp(dialect);

    it('wraps keys stored before SECRETS_ENCRYPTION_KEY was set; encrypted secrets still decrypt (spec Authentication rule 15)', async () => {
        const realm = await createRealm(app, 'late-key');
        const client = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { name: 'enc-client', realmId: realm, secret: 'enc-secret-value', secretEncrypted: true },
        }, 201)).data;
        const stored = await app.deps.db.selectFrom('auth_clients').select('secret').where('id', '=', client.id).executeTakeFirstOrThrow();
        const unwrappedBefore = await app.deps.db.selectFrom('auth_keys').select('id').where('private_key', 'not like', 'wrapped:v1:%').execute();
        expect(unwrappedBefore.length).toBeGreaterThan(0);

        const masterKey = randomBytes(32).toString('hex');
        const keyed = createSecretBox(app.deps.handle, masterKey);
        expect(await keyed.wrapStoredKeys(app.deps.db)).toBe(unwrappedBefore.length);
        expect(await keyed.wrapStoredKeys(app.deps.db)).toBe(0);
        const unwrappedAfter = await app.deps.db.selectFrom('auth_keys').select('id').where('private_key', 'not like', 'wrapped:v1:%').execute();
        expect(unwrappedAfter).toHaveLength(0);
        expect(await keyed.decrypt(app.deps.db, stored.secret!)).toBe('enc-secret-value');
        // without the variable the wrapped material is unavailable, never silently used
        await expect(createSecretBox(app.deps.handle, null).decrypt(app.deps.db, stored.secret!)).rejects.toMatchObject({ code: 'secret_unavailable' });
    });

    it('MIGRATION_ENABLED=false boots without migrating: an unmigrated database refuses, a migrated one serves', async () => {
        const database = await createTestDatabase(dialect);
        const config = loadConfig({}, {
            migrationEnabled: false, logLevel: 'silent', writableDirectoryPath: join(tmpdir(), 'realmgate-test'),
            db: { type: dialect, ...(dialect === 'sqlite' ? {} : { url: database.location }) },
        });
        try {
            await expect(createApp(config, { handle: database, bcryptCost: 4 })).rejects.toThrow();
            const pending = await migrationStatus(database);
            expect(pending.length).toBeGreaterThan(0);
            expect(pending.every((migration) => migration.executedAt === null)).toBe(true);
            await migrateToLatest(database);
            const booted = await createApp(config, { handle: database, bcryptCost: 4 });
            expect((await booted.app.inject({ method: 'GET', url: '/realms', headers: { authorization: basicHeader('admin', 'start123') } })).statusCode).toBe(200);
            await booted.close();
        } finally {
            await database.drop();
        }
    });

    it('logs the default-password warning when a production process boots through createApp (spec Authentication rule 20)', async () => {
        const database = await createTestDatabase(dialect);
        const warn = vi.fn();
        const logger = {
            level: 'info', warn, info: vi.fn(), error: vi.fn(), debug: vi.fn(), trace: vi.fn(), fatal: vi.fn(), silent: vi.fn(),
            child() { return logger; },
        } as unknown as FastifyBaseLogger;
        const config = loadConfig({}, {
            env: 'production', logLevel: 'silent', writableDirectoryPath: join(tmpdir(), 'realmgate-test'),
            db: { type: dialect, ...(dialect === 'sqlite' ? {} : { url: database.location }) },
        });
        const booted = await createApp(config, { handle: database, bcryptCost: 4, logger });
        try {
            expect(warn).toHaveBeenCalledWith(expect.stringContaining('still has the default password'));
        } finally {
            await booted.close();
            await database.drop();
        }
    });
});
