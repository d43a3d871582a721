/*
 * The fixed cost of a request through the whole plugin chain (security headers, CORS, limits, the
 * authentication step), in-process through app.inject on SQLite: a bearer GET /users/@me, a short
 * list and an anonymous 404, best and median of six rounds in µs per request. Compare two trees
 * by running it in each.
 *
 *   node --conditions=source --import tsx packages/server/test/measure/request-overhead.ts
 */
import { startTestApp } from '../app.js';
const app = await startTestApp('sqlite');
const form = { 'content-type': 'application/x-www-form-urlencoded' };
const login = await app.request({ method: 'POST', url: '/token', headers: form, payload: 'grant_type=password&username=admin&password=start123', as: null });
const token = (login.json() as { access_token: string }).access_token;
const results: Record<string, number[]> = {};
const cases: Record<string, () => Promise<unknown>> = {
    me: () => app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${token}` }),
    list: () => app.request({ method: 'GET', url: '/roles?page[limit]=5', as: `Bearer ${token}` }),
    notfound: () => app.request({ method: 'GET', url: '/nothing', as: null }),
};
for (let round = 0; round < 6; round++) {
    for (const [name, run] of Object.entries(cases)) {
        const n = 1500;
        const start = process.hrtime.bigint();
        for (let i = 0; i < n; i++) await run();
        (results[name] ??= []).push(Number(process.hrtime.bigint() - start) / 1e3 / n);
    }
}
console.log(Object.entries(results).map(([k, v]) => `${k} min ${Math.min(...v).toFixed(0)} med ${v.sort((a, b) => a - b)[3]!.toFixed(0)}`).join(' | '));
await app.dispose();
