import { describe, expect, it, vi } from 'vitest';
import { runCli } from './cli.js';

describe('cli', () => {
    it('migration generate answers an unknown-operation message (spec Errors)', async () => {
        await expect(runCli(['migration', 'generate'])).rejects.toThrow(/Unknown migration operation "generate"/);
    });

    it('refuses a mis-typed start role and the roles this release does not ship, before boot', async () => {
        await expect(runCli(['start', 'wroker'])).rejects.toThrow(/Unknown start role "wroker"/);
        for (const role of ['core', 'worker', 'console']) {
            await expect(runCli(['start', role])).rejects.toThrow(/not available in this release/);
        }
    });

    it('prints usage for --help and refuses unknown commands', async () => {
        const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
        await runCli(['--help']);
        expect(log.mock.calls[0]?.[0]).toContain('migration status');
        log.mockRestore();
        await expect(runCli(['serve'])).rejects.toThrow(/Unknown command "serve"/);
    });
});
