import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createConnection } from 'mysql2/promise';
import type { TestProject } from 'vitest/node';
import { postgresAdmin } from './databases.js';
import { sqliteTemplatePath, templateName } from './database-templates.js';
import { ensureConsoleBuilt } from './e2e/console-build.js';

/*
 * Once per `vitest run` (vitest.config.ts globalSetup): names the run, whose migrated templates
 * (test/database-templates.ts) the suites build on first use, and drops them when the run ends.
 */

declare module 'vitest' {
    export interface ProvidedContext {
        /** names the run's database templates */
        realmgateTestRun: string;
    }
}

export default function setup(project: TestProject): () => Promise<void> {
    // the consoles the browser tests serve, built before any file runs (a no-op when fresh)
    ensureConsoleBuilt();
    const run = randomBytes(6).toString('hex');
    project.provide('realmgateTestRun', run);
    return async () => {
        const name = templateName(run);
        await rm(sqliteTemplatePath(run), { force: true });
        const postgresUrl = process.env.TEST_POSTGRES_URL;
        if (postgresUrl) {
            await postgresAdmin(postgresUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            await postgresAdmin(postgresUrl, `DROP DATABASE IF EXISTS ${name}_b WITH (FORCE)`);
        }
        const mysqlUrl = process.env.TEST_MYSQL_URL;
        if (mysqlUrl) {
            const connection = await createConnection(mysqlUrl);
            try {
                await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
            } finally {
                await connection.end();
            }
        }
    };
}
