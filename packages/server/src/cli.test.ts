import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseStartRole, readConfig, runCli } from './cli.js';

describe('cli', () => {
    it('migration generate answers an unknown-operation message (spec Errors)', async () => {
        await expect(runCli(['migration', 'generate'])).rejects.toThrow(/Unknown migration operation "generate"/);
    });

    it('parses the start roles of spec beta.64 item 5', () => {
        expect(parseStartRole([])).toEqual({ kind: 'serve', role: 'all' });
        expect(parseStartRole(['core'])).toEqual({ kind: 'serve', role: 'core' });
        expect(parseStartRole(['worker'])).toEqual({ kind: 'worker' });
        // console roles serve their console alone, never the API: every console, or the one named
        expect(parseStartRole(['console'])).toEqual({ kind: 'console', names: ['admin', 'account', 'auth'] });
        expect(parseStartRole(['console', 'auth'])).toEqual({ kind: 'console', names: ['auth'] });
        expect(parseStartRole(['console', 'admin'])).toEqual({ kind: 'console', names: ['admin'] });
        expect(parseStartRole(['console', 'account'])).toEqual({ kind: 'console', names: ['account'] });
    });

    it('refuses a mis-typed role, console or extra argument before boot', async () => {
        await expect(runCli(['start', 'wroker'])).rejects.toThrow(/Unknown start role "wroker"/);
        await expect(runCli(['start', 'console', 'admni'])).rejects.toThrow(/Unknown console "admni"/);
        await expect(runCli(['start', 'console', 'admin', 'x'])).rejects.toThrow(/Unexpected argument "x"/);
        await expect(runCli(['start', 'worker', 'now'])).rejects.toThrow(/Unexpected argument "now" after "start worker"/);
        await expect(runCli(['start', 'console', 'auth', 'x'])).rejects.toThrow(/Unexpected argument "x"/);
        // the old spellings of beta.64 do not exist
        await expect(runCli(['start', '--worker'])).rejects.toThrow(/Unknown start role "--worker"/);
    });

    it('accepts the deprecated server/core prefix of the container command with a warning (spec beta.64 item 6)', async () => {
        const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
        try {
            // the rest runs as the CLI's own argument list: the role after the prefix is parsed as ever
            await expect(runCli(['server', 'start', 'wroker'])).rejects.toThrow(/Unknown start role "wroker"/);
            await expect(runCli(['core', 'migration', 'generate'])).rejects.toThrow(/Unknown migration operation "generate"/);
            expect(warn).toHaveBeenCalledTimes(2);
            expect(warn.mock.calls[0]?.[0]).toMatch(/"server" prefix is deprecated.*removed in v1\.0\.0.*realmgate start wroker/);
            expect(warn.mock.calls[1]?.[0]).toMatch(/"core" prefix is deprecated/);
            // `start core` stays the role, not a prefix
            expect(parseStartRole(['core'])).toEqual({ kind: 'serve', role: 'core' });
        } finally {
            warn.mockRestore();
        }
    });

    it('start console refuses, before boot, the auth console on the port of the admin and account consoles', async () => {
        vi.stubEnv('CONSOLE_PORT', '4100');
        try {
            await expect(runCli(['start', 'console'])).rejects.toThrow(/CONSOLE_AUTH_PORT .*apart from CONSOLE_PORT/);
        } finally {
            vi.unstubAllEnvs();
        }
    });

    it('start worker refuses to boot while WORKER_ENABLED is false (spec Errors), before opening anything', async () => {
        vi.stubEnv('WORKER_ENABLED', 'false');
        try {
            await expect(runCli(['start', 'worker'])).rejects.toThrow(/WORKER_ENABLED is false/);
        } finally {
            vi.unstubAllEnvs();
        }
    });

    it('prints usage for --help and refuses unknown commands', async () => {
        const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
        await runCli(['--help']);
        expect(log.mock.calls[0]?.[0]).toContain('migration status');
        expect(log.mock.calls[0]?.[0]).toContain('start worker');
        log.mockRestore();
        await expect(runCli(['serve'])).rejects.toThrow(/Unknown command "serve"/);
    });
});

describe('readConfig: the config file smtp object', () => {
    it('is checked member by member by the mailer\'s reader, the error naming the file', () => {
        const cwd = mkdtempSync(join(tmpdir(), 'realmgate-cli-'));
        try {
            const file = join(cwd, 'realmgate.config.json');
            writeFileSync(file, JSON.stringify({ smtp: { host: 'mail.example.com', port: 465, secure: true, auth: { user: 'u', pass: 'p' } } }));
            expect(readConfig({}, cwd).smtp).toEqual({ host: 'mail.example.com', port: 465, secure: true, auth: { user: 'u', pass: 'p' } });
            writeFileSync(file, JSON.stringify({ smtp: { host: 'mail.example.com', port: 'submission' } }));
            expect(() => readConfig({}, cwd)).toThrow(`smtp.port must be an integer from 1 to 65535 (in ${file}).`);
            // SMTP_URL from the environment still overrides the file's object
            expect(readConfig({ SMTP_URL: 'smtp://relay:25' }, cwd).smtp).toBe('smtp://relay:25');
        } finally {
            rmSync(cwd, { recursive: true, force: true });
        }
    });

    it('loads the deploy guide\'s example file as written (docs/operations/deploy.md)', () => {
        const guide = readFileSync(new URL('../../../docs/operations/deploy.md', import.meta.url), 'utf8');
        const example = /```yaml\n# realmgate\.config\.yaml\n([\s\S]*?)```/.exec(guide)?.[1];
        expect(example).toBeDefined();
        const cwd = mkdtempSync(join(tmpdir(), 'realmgate-cli-'));
        try {
            writeFileSync(join(cwd, 'realmgate.config.yaml'), example!);
            expect(readConfig({}, cwd)).toMatchObject({
                env: 'production', trustProxy: 1, worker: { port: 3001 }, middlewareBody: { json: { limit: '1mb' }, text: false },
                db: { type: 'mysql', replication: { read: ['mysql://realmgate:secret@db-replica-1:3306/realmgate'] } },
                smtp: { host: 'mail.example.com', port: 465, secure: true },
            });
        } finally {
            rmSync(cwd, { recursive: true, force: true });
        }
    });
});
