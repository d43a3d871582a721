import { describe, expect, it } from 'vitest';
import { asyncCommitPoolSize, verifyAsynchronousCommit } from './postgres.js';
import { DatabaseConfigError } from './utc-pin.js';

describe('PostgreSQL asynchronous-commit pool', () => {
    it('takes a quarter of DB_POOL_SIZE, rounded down: none below 4', () => {
        expect([1, 2, 3, 4, 7, 8, 10, 32].map(asyncCommitPoolSize)).toEqual([0, 0, 0, 1, 1, 2, 2, 8]);
    });

    it('stops the boot, naming DB_ASYNCHRONOUS_COMMIT, when its connections cannot be opened or do not run with it off', async () => {
        await expect(verifyAsynchronousCommit(async () => 'off')).resolves.toBeUndefined();
        // PgBouncer without `options` in ignore_startup_parameters refuses the connection
        const refused = await verifyAsynchronousCommit(async () => {
            throw new Error('unsupported startup parameter: options');
        }).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(DatabaseConfigError);
        expect(refused).toMatchObject({ setting: 'DB_ASYNCHRONOUS_COMMIT' });
        expect((refused as Error).message).toMatch(/unsupported startup parameter: options.*DB_ASYNCHRONOUS_COMMIT=false/);
        // with it listed there, the option is dropped and the connection commits synchronously
        const dropped = await verifyAsynchronousCommit(async () => 'on').catch((error: unknown) => error);
        expect(dropped).toMatchObject({ setting: 'DB_ASYNCHRONOUS_COMMIT' });
        expect((dropped as Error).message).toContain('"on"');
    });
});
