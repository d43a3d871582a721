import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadBootConfig } from './load.js';

const folders: string[] = [];
afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folderWith(files: Record<string, string>): string {
    const folder = mkdtempSync(join(tmpdir(), 'realmgate-config-'));
    folders.push(folder);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
    return folder;
}

function bootError(env: Record<string, string>, cwd: string): ConfigError {
    try {
        loadBootConfig(env, cwd);
    } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return error as ConfigError;
    }
    throw new Error('expected the boot to stop');
}

const YAML_FILE = `
core:
  port: 8080
  publicUrl: https://auth.example.com/
  worker:
    port: 8081
  rateLimit:
    userMax: 100
  trustProxy: 1
  permissionsDefaultPolicyAssignment: false
  middlewareBody:
    json:
      limit: 1mb
    text: false
  middlewareRateLimit:
    max: 500
db:
  type: postgres
  url: postgres://realmgate@db:5432/realmgate
smtp:
  host: mail.example.com
  port: 465
  secure: true
`;

describe('configuration file', () => {
    it('reads realmgate.config.yaml from the working directory with the spec nesting', () => {
        const cwd = folderWith({ 'realmgate.config.yaml': YAML_FILE });
        const config = loadBootConfig({}, cwd);
        expect(config).toMatchObject({
            configFile: join(cwd, 'realmgate.config.yaml'),
            port: 8080,
            publicUrl: 'https://auth.example.com',
            worker: { port: 8081, enabled: true },
            rateLimit: { userMax: 100, clientMax: 300000 },
            trustProxy: 1,
            permissionsDefaultPolicyAssignment: false,
            middlewareBody: { json: { limit: '1mb' }, text: false },
            middlewareRateLimit: { max: 500 },
            db: { type: 'postgres', url: 'postgres://realmgate@db:5432/realmgate' },
            smtp: { host: 'mail.example.com', port: 465, secure: true },
        });
    });

    it('reads JSON from CONFIG_FILE, relative to the working directory', () => {
        const cwd = folderWith({ 'deploy.json': JSON.stringify({ core: { logLevel: 'warn', userAuthBasic: false }, db: { type: 'sqlite' } }) });
        expect(loadBootConfig({ CONFIG_FILE: 'deploy.json' }, cwd)).toMatchObject({ logLevel: 'warn', userAuthBasic: false, configFile: join(cwd, 'deploy.json') });
        expect(bootError({ CONFIG_FILE: 'missing.json' }, cwd).message).toContain(join(cwd, 'missing.json'));
    });

    it('environment variables override the file key by key; derived defaults follow the file', () => {
        const cwd = folderWith({ 'realmgate.config.json': JSON.stringify({ core: { port: 8080, logLevel: 'warn' } }) });
        const config = loadBootConfig({ LOG_LEVEL: 'debug' }, cwd);
        expect(config).toMatchObject({ port: 8080, logLevel: 'debug', publicUrl: 'http://localhost:8080', worker: { port: 8080 } });
    });

    it('no file: the environment and the defaults alone', () => {
        const config = loadBootConfig({ PORT: '4000' }, folderWith({}));
        expect(config).toMatchObject({ port: 4000, configFile: undefined });
    });

    it('an unknown key stops the boot naming the file and the key path', () => {
        for (const [tree, path] of [
            [{ core: { prot: 8080 } }, 'core.prot'],
            [{ core: { worker: { enabled: true, sweepEvery: 5 } } }, 'core.worker.sweepEvery'],
            [{ database: {} }, 'database'],
            [{ core: { db: { url: 'x' } } }, 'core.db'],
            [{ core: { configFile: 'other.json' } }, 'core.configFile'],
        ] as const) {
            const cwd = folderWith({ 'realmgate.config.json': JSON.stringify(tree) });
            const error = bootError({}, cwd);
            expect(error.message).toContain(join(cwd, 'realmgate.config.json'));
            expect(error.message).toContain(`unknown key ${path}`);
            expect(error.key).toBe(path);
        }
    });

    it('a wrong type or a bad value stops the boot naming the file and the key path', () => {
        for (const [tree, path, fragment] of [
            [{ core: { port: '8080' } }, 'core.port', /must be a number, got string/],
            [{ core: { port: 70000 } }, 'core.port', /integer from 1 to 65535/],
            [{ core: { userAdmin: { enabled: 'true' } } }, 'core.userAdmin.enabled', /must be a boolean/],
            [{ core: { middlewareQuery: { depth: 0 } } }, 'core.middlewareQuery', /positive integers/],
            [{ core: { middlewareBody: ['json'] } }, 'core.middlewareBody', /got an array/],
            [{ db: { type: 'oracle' } }, 'db.type', /`sqlite`, `postgres`, `mysql`/],
            [{ core: { worker: 3 } }, 'core.worker', /must be an object/],
        ] as const) {
            const cwd = folderWith({ 'realmgate.config.yml': `${JSON.stringify(tree)}\n` });
            const error = bootError({}, cwd);
            expect(error.message).toContain(path);
            expect(error.message).toContain(join(cwd, 'realmgate.config.yml'));
            expect(error.message).toMatch(fragment);
        }
    });

    it('accepts the spec Limits names rateLimitUserMax, rateLimitClientMax and rateLimitAnonymousMax under core', () => {
        const cwd = folderWith({ 'realmgate.config.yaml': 'core:\n  rateLimitUserMax: 10\n  rateLimitClientMax: 20\n  rateLimitAnonymousMax: 30\n' });
        expect(loadBootConfig({}, cwd).rateLimit).toEqual({ userMax: 10, clientMax: 20, anonymousMax: 30 });
        // the variable still wins over the file, key by key
        expect(loadBootConfig({ RATE_LIMIT_USER_MAX: '5' }, cwd).rateLimit).toEqual({ userMax: 5, clientMax: 20, anonymousMax: 30 });
    });

    it('a bad value under a spec Limits name is reported under the name the file used', () => {
        const cwd = folderWith({ 'realmgate.config.json': JSON.stringify({ core: { rateLimitUserMax: 'many' } }) });
        const error = bootError({}, cwd);
        expect(error.message).toContain('core.rateLimitUserMax');
        expect(error.message).toMatch(/must be a number, got string/);
    });

    it('one budget under both of its names is refused as ambiguous', () => {
        const cwd = folderWith({ 'realmgate.config.json': JSON.stringify({ core: { rateLimitUserMax: 10, rateLimit: { userMax: 20 } } }) });
        const error = bootError({}, cwd);
        expect(error.message).toContain('core.rateLimitUserMax');
        expect(error.message).toContain('core.rateLimit.userMax');
    });

    it('a secret in a bad value is not echoed', () => {
        const cwd = folderWith({ 'realmgate.config.json': JSON.stringify({ core: { secretsEncryptionKey: 'hunter2-hunter2' } }) });
        const error = bootError({}, cwd);
        expect(error.message).toContain('core.secretsEncryptionKey');
        expect(error.message).not.toContain('hunter2');
    });

    it('an unreadable file, a non-object top level or two candidate files stop the boot', () => {
        expect(bootError({}, folderWith({ 'realmgate.config.json': '{ "core": ' })).message).toMatch(/Invalid configuration file .*realmgate\.config\.json/);
        expect(bootError({}, folderWith({ 'realmgate.config.yaml': '- 1\n- 2\n' })).message).toMatch(/top level must be an object/);
        expect(bootError({}, folderWith({ 'realmgate.config.json': '{}', 'realmgate.config.yaml': '' })).message).toMatch(/both exist/);
        // an empty YAML file configures nothing
        expect(loadBootConfig({}, folderWith({ 'realmgate.config.yaml': '' })).port).toBe(3000);
    });
});
