import { inspect } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { Config, DeepPartial } from '../../src/config/schema.js';
import { ADMIN, startTestApp, type TestApp } from '../app.js';
import { sharedSchemaController } from '../shared-validators.js';

/*
 * A production boot warns about the two settings an operator must not leave at their defaults:
 * SECRETS_ENCRYPTION_KEY unset (spec Authentication rule 15) and the bootstrap administrator's
 * default password (rule 20). Each warning names the setting and carries no secret value.
 */

/** A logger that keeps every line it is given, at every level, as text. */
function recordingLogger(lines: string[]): FastifyBaseLogger {
    const record = (...args: unknown[]) => {
        lines.push(args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg, { depth: 4 }))).join(' '));
    };
    const logger = {
        level: 'info', warn: record, info: record, error: record, debug: record, trace: record, fatal: record, silent: record,
        child() { return logger; },
    };
    return logger as unknown as FastifyBaseLogger;
}

const KEY = Buffer.alloc(32, 7).toString('base64');
const CHOSEN_PASSWORD = 'a-chosen-admin-password';

const keyWarnings = (lines: string[]) => lines.filter((line) => line.includes('SECRETS_ENCRYPTION_KEY is not set'));
const passwordWarnings = (lines: string[]) => lines.filter((line) => line.includes('still has the default password'));

describe('production boot warnings', () => {
    const apps: TestApp[] = [];
    afterEach(async () => {
        for (const app of apps.splice(0).reverse()) await app.dispose();
    });

    async function boot(overrides: DeepPartial<Config>): Promise<{ app: TestApp; lines: string[] }> {
        const lines: string[] = [];
        const app = await startTestApp('sqlite', overrides, { logger: recordingLogger(lines) });
        apps.push(app);
        return { app, lines };
    }

    /** A second process on the same database with its own configuration: its bootstrap runs again. */
    async function bootBeside(owner: TestApp, overrides: Partial<Config>): Promise<string[]> {
        const lines: string[] = [];
        const beside = await createApp({ ...owner.deps.config, ...overrides }, {
            handle: owner.database, bcryptCost: 4, schemaController: sharedSchemaController, logger: recordingLogger(lines),
        });
        await beside.close();
        return lines;
    }

    it('without SECRETS_ENCRYPTION_KEY and with the default admin password: one warning each, naming the setting, no password', async () => {
        const { lines } = await boot({ env: 'production' });
        expect(keyWarnings(lines)).toHaveLength(1);
        const [password] = passwordWarnings(lines);
        expect(passwordWarnings(lines)).toHaveLength(1);
        expect(password).toContain('USER_ADMIN_PASSWORD');
        expect(password).toContain(`"${ADMIN.name}"`);
        for (const line of lines) expect(line).not.toContain(ADMIN.password);
    });

    it('with SECRETS_ENCRYPTION_KEY and a chosen admin password: neither warning, and neither value in the log', async () => {
        const { lines } = await boot({ env: 'production', secretsEncryptionKey: KEY, userAdmin: { password: CHOSEN_PASSWORD } });
        expect(keyWarnings(lines)).toEqual([]);
        expect(passwordWarnings(lines)).toEqual([]);
        for (const line of lines) {
            expect(line).not.toContain(KEY);
            expect(line).not.toContain(CHOSEN_PASSWORD);
        }
    });

    it('the stored password decides: changed through the API, the next boot is quiet; a new USER_ADMIN_PASSWORD does not change a stored default', async () => {
        const { app } = await boot({ env: 'production', secretsEncryptionKey: KEY });
        // USER_ADMIN_PASSWORD only seeds the first boot: setting it later leaves the stored default in place
        expect(passwordWarnings(await bootBeside(app, { userAdmin: { ...app.deps.config.userAdmin, password: CHOSEN_PASSWORD } }))).toHaveLength(1);
        const admin = (await app.json<{ data: { id: string }[] }>({ method: 'GET', url: `/users?filter[name]=${ADMIN.name}` }, 200)).data[0]!;
        await app.json({ method: 'POST', url: `/users/${admin.id}`, payload: { password: CHOSEN_PASSWORD, currentPassword: ADMIN.password } }, 200);
        expect(passwordWarnings(await bootBeside(app, {}))).toEqual([]);
    });

    it('a deactivated bootstrap administrator (USER_ADMIN_ENABLED=false) is no warning', async () => {
        const { lines } = await boot({ env: 'production', secretsEncryptionKey: KEY, userAdmin: { enabled: false } });
        expect(passwordWarnings(lines)).toEqual([]);
    });

    it('outside production: neither warning', async () => {
        for (const env of ['development', 'test'] as const) {
            const { lines } = await boot({ env });
            expect(keyWarnings(lines), env).toEqual([]);
            expect(passwordWarnings(lines), env).toEqual([]);
        }
    });
});
