/**
 * The modern-OAuth ratios alone (`npm run bench -- client-auth`): client_credentials with a plain
 * secret (Basic), with private_key_jwt (a fresh ES256 assertion per request), bound by DPoP (a
 * fresh proof per request), and a pushed authorization request, on one Realmgate server on
 * SQLite, in interleaved rounds — the ratios the full HTTP report also shows (its "browser
 * sign-in" section), without the full report's servers, floors and references.
 */
import { Api, basic } from './lib/api.js';
import { assertionPool, assertionScenario, seedKeyClient } from './lib/client-assertions.js';
import { dpopProofPool, dpopScenario } from './lib/dpop.js';
import { createBenchDatabase } from './lib/database.js';
import { loadPlan } from './lib/load.js';
import type { Section } from './lib/report.js';
import { httpScenario, runRounds } from './lib/scenarios.js';
import { row, serverCommand, startRealmgate } from './http.bench.js';

const FORM = 'application/x-www-form-urlencoded';
/** the bootstrap administrator of a fresh server (as in http.bench.ts) */
const ADMIN = { name: 'admin', password: 'start123' };

export async function runClientAuth(options: { quick: boolean; source: boolean }, log: (line: string) => void): Promise<{ sections: Section[]; notes: string[] }> {
    const plan = loadPlan(options.quick);
    const notes: string[] = [];
    const args = serverCommand(options, notes);
    const database = await createBenchDatabase('sqlite');
    log('starting a realmgate server (sqlite)');
    const service = await startRealmgate(args, database, true);
    try {
        const basicApi = new Api(service.url, basic(ADMIN.name, ADMIN.password));
        const token = await basicApi.token({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password });
        const api = new Api(service.url, `Bearer ${token.access_token}`);
        const realmName = 'bench';
        const realmId = await api.create('realms', { name: realmName });
        const secret = `secret-${Date.now()}`;
        const plainId = await api.create('clients', { realmId, name: 'svc-plain', secret });
        const assertions = assertionPool(await seedKeyClient(api, realmId), `${service.url}/realms/${realmName}`, realmName);
        const redirectUri = 'https://app.bench.example/cb';
        const pusherId = await api.create('clients', { realmId, name: 'web-pusher', secret, redirectUri });
        const c = plan.connections;
        const plainRequest = {
            method: 'POST', path: '/token', headers: { 'content-type': FORM, authorization: basic(plainId, secret) },
            body: new URLSearchParams({ grant_type: 'client_credentials', realm_name: realmName }).toString(),
        } as const;
        const proofs = dpopProofPool('POST', `${service.url}/token`);
        const scenarios = await Promise.all([
            httpScenario('plain', service, plainRequest, c, { server: true }),
            assertionScenario('privateKeyJwt', service, assertions, c),
            // RFC 9449: the same request with a fresh proof, so the token is bound
            dpopScenario('dpop', service, plainRequest, c, proofs),
            // RFC 9126: a confidential client pushes its authorization request
            httpScenario('par', service, {
                method: 'POST', path: '/par', headers: { 'content-type': FORM, authorization: basic(pusherId, secret) },
                body: new URLSearchParams({
                    response_type: 'code', client_id: pusherId, redirect_uri: redirectUri, scope: 'openid', state: 'bench-state',
                    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
                }).toString(),
            }, c, { server: true }),
        ]);
        const measured = await runRounds(scenarios, plan, log);
        const plain = measured.get('plain')!;
        if (assertions.state.dry > 0) notes.push(`${assertions.state.dry} requests found the assertion pool dry and replayed one`);
        // a proof minted during a load costs the load generator what the pool exists to spare it
        if (proofs.mintedDuringLoad() > 0) notes.push(`${proofs.mintedDuringLoad()} DPoP proofs were minted during a load: the pool ran dry`);
        return {
            sections: [{
                title: `client authentication, DPoP and PAR (sqlite, ${c} connections, ${plan.rounds} rounds of ${plan.roundSeconds} s)`,
                rows: [
                    row('client_credentials, plain secret (Basic)', plain),
                    row('client_credentials (private_key_jwt), an ES256 assertion per request', measured.get('privateKeyJwt')!, { name: 'plain secret, same run', rps: plain.rps }, { ratio: 0.7 }),
                    row('client_credentials (DPoP), a fresh ES256 proof per request', measured.get('dpop')!, { name: 'plain secret, same run', rps: plain.rps }, { ratio: 0.7 }),
                    row('PAR push (RFC 9126), Basic client authentication', measured.get('par')!, { name: 'plain secret, same run', rps: plain.rps }, { ratio: 0.8 }),
                ],
            }],
            notes,
        };
    } finally {
        await service.stop().catch(() => undefined);
        await database.drop();
    }
}
