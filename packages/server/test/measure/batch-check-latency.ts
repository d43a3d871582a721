/*
 * A first latency figure for POST /authorization/check (the batch check's speed target): 256 names for a user
 * holding 100 grants, in-process through app.inject on SQLite. The load-generator benchmark
 * against a separate process lives in bench/.
 *
 *   node --conditions=source --import tsx packages/server/test/measure/batch-check-latency.ts [iterations]
 */
import { RealmScope } from '@realmgate/core';
import { startTestApp } from '../app.js';
import { createActor, createRealm } from '../actors.js';
import { accessToken, bearer, grant, insertPermission, systemDefaultId } from '../check-fixtures.js';

const iterations = Number(process.argv[2] ?? 2000);
const app = await startTestApp('sqlite');
try {
    const realm = await createRealm(app, 'bench-realm');
    const actor = await createActor(app, realm, []);
    const systemDefault = await systemDefaultId(app);
    const names: string[] = [];
    for (let i = 0; i < 256; i++) {
        const permission = await insertPermission(app, { name: `bench_perm_${i}`, policies: [systemDefault] });
        names.push(permission.name);
        // 100 grants, alternating reaches so both the own and ownOrNull answers are exercised
        if (i < 100) await grant(app, { userId: actor.userId }, permission.id, i % 2 ? RealmScope.OWN : RealmScope.OWN_OR_NULL);
    }
    // a bearer, as a console or public client calls it (Basic would add a bcrypt verification)
    const token = await accessToken(app, { grant_type: 'password', username: actor.name, password: 'secret-password', realm_id: realm });
    const request = () => app.request({ method: 'POST', url: '/authorization/check', payload: { names }, as: bearer(token) });
    const first = await request();
    const granted = (first.json() as unknown[]).length;
    if (first.statusCode !== 200 || granted !== 100) throw new Error(`unexpected answer ${first.statusCode}: ${granted} entries`);
    for (let i = 0; i < 200; i++) await request();
    const samples: number[] = [];
    for (let i = 0; i < iterations; i++) {
        const start = process.hrtime.bigint();
        await request();
        samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    samples.sort((a, b) => a - b);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(3);
    console.log(`POST /authorization/check, 256 names, 100 grants, ${iterations} requests (bearer, sqlite, app.inject)`);
    console.log(`p50 ${at(0.5)} ms  p90 ${at(0.9)} ms  p99 ${at(0.99)} ms`);
} finally {
    await app.dispose();
}
