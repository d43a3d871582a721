import { createHash } from 'node:crypto';
import type { Config } from './schema.js';

/**
 * A deployment's identity in a shared Redis (rate-limit keys, the bus channel): one per database,
 * so the replicas of a deployment (which share its database) meet, while deployments or test runs
 * on other databases sharing the Redis never see each other. Credentials are left out of what is hashed.
 */
export function deploymentId(config: Config): string {
    const db = config.db;
    let location: string;
    if (db.url) {
        try {
            const url = new URL(db.url);
            url.username = '';
            url.password = '';
            location = url.toString();
        } catch {
            location = db.url;
        }
    } else {
        location = `${db.host ?? ''}:${db.port ?? ''}/${db.database ?? config.writableDirectoryPath}`;
    }
    return createHash('sha256').update(`${db.type}|${location}`).digest('hex').slice(0, 12);
}
