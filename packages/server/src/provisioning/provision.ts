import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/schema.js';
import { applyProvisioning, type ProvisioningDeps, type ProvisioningSummary } from './apply.js';
import { loadProvisioningFiles } from './files.js';

/** The folder the boot applies: `provisioning` under WRITABLE_DIRECTORY_PATH. */
export function provisioningDirectory(config: Pick<Config, 'writableDirectoryPath'>): string {
    return join(config.writableDirectoryPath, 'provisioning');
}

/** Load, validate, then apply every file a path names (a file, or a folder of them); nothing when there are none. */
export async function provision(deps: ProvisioningDeps, path: string, logger?: FastifyBaseLogger): Promise<ProvisioningSummary> {
    const documents = await loadProvisioningFiles(path);
    const summary = await applyProvisioning(deps, documents);
    if (summary.files > 0) logger?.info(summary, 'applied provisioning files');
    return summary;
}
