import { defaultPolicyEngine, type PolicyIdentity } from '@realmgate/access';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { loadPolicyTree } from './policy-tree.js';

/** The client a token is issued through, as far as its access policy is concerned. */
export interface AccessPolicedClient {
    realmId: string;
    /** auth_clients.access_policy_id; null: the client admits every identity */
    accessPolicyId: string | null;
}

/**
 * Whether a client's access policy (spec client field `accessPolicyId`) admits `identity` — asked
 * at every token issuance through the client. Evaluated by the access engine, the same evaluation
 * POST /policies/:id/check runs, with the client's realm as the resource realm. Anything but a
 * pass denies: a failing or pending tree, one this server cannot project, a policy gone, and a
 * policy of another realm than the client's (spec Versioning "cross-realm policy references
 * refused": it denies every login to that client). A client without a policy costs nothing: no
 * statement is run.
 */
export async function clientAccessAllows(db: Kysely<Database>, client: AccessPolicedClient, identity: PolicyIdentity): Promise<boolean> {
    if (client.accessPolicyId === null) return true;
    const { found, tree, realmId } = await loadPolicyTree(db, client.accessPolicyId);
    if (!found || tree === null) return false;
    if (realmId !== null && realmId !== client.realmId) return false;
    return defaultPolicyEngine.evaluate(tree, { realmMatch: client.realmId }, { identity }) === 'pass';
}
