import { expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../app.js';
import { authorizeParams, browser, browserWorld } from '../browser.js';
import { describeEachDialect } from '../databases.js';

/*
 * Request middleware settings (spec Limits): middlewareBody, middlewareCookie, middlewareQuery and
 * middlewareRateLimit through the real app. None of them reaches the database, so they run on the
 * embedded one only: a server database would add its setup and nothing these settings depend on.
 */

const jsonPost = (app: TestApp, payload: string) => app.request({ method: 'POST', url: '/realms', headers: { 'content-type': 'application/json' }, payload });

describeEachDialect('middleware settings at their defaults', (dialect) => {
    const app = useTestApp(dialect);

    it('every parser stays on under the 10 MB cap; query strings nested beyond 5 levels answer 400', async () => {
        expect((await jsonPost(app, JSON.stringify({ name: 'body-defaults', displayName: 'x'.repeat(2000) }))).statusCode).not.toBe(413);
        expect((await app.request({ method: 'POST', url: '/realms', headers: { 'content-type': 'text/plain' }, payload: 'plain' })).statusCode).not.toBe(415);
        expect((await app.request({ method: 'GET', url: '/users?filter[a][b][c][d][e]=1' })).statusCode).not.toBe(500);
        const deep = await app.request({ method: 'GET', url: '/users?filter[a][b][c][d][e][f]=1' });
        expect(deep.statusCode).toBe(400);
        expect(deep.json()).toMatchObject({ issues: [{ path: ['query', 'filter[a][b][c][d][e][f]'], code: 'too_deep' }] });
    });
}, ['sqlite']);

describeEachDialect('middleware settings turned down', (dialect) => {
    const app = useTestApp(dialect, {
        middlewareBody: { json: { limit: '1kb' }, text: false },
        middlewareQuery: { depth: 1, arrayLimit: 2, parameterLimit: 10 },
        middlewareCookie: false,
    });

    it('middlewareBody: JSON capped at its own limit (413), text off (unsupported media type), the form parser left out stays on', async () => {
        const capped = await jsonPost(app, JSON.stringify({ name: 'x'.repeat(2000) }));
        expect(capped.statusCode).toBe(413);
        expect(capped.json()).toMatchObject({ statusCode: 413, code: 'payload_too_large' });
        const small = await jsonPost(app, JSON.stringify({ name: 'small-body' }));
        expect(small.statusCode, small.body).toBe(201);
        const text = await app.request({ method: 'POST', url: '/realms', headers: { 'content-type': 'text/plain' }, payload: 'plain' });
        // API.md §1: a body the server does not take is client input, 400 with the issue naming it
        expect(text.statusCode).toBe(400);
        expect(text.json()).toMatchObject({ issues: [{ path: ['body'], code: 'unsupported_media_type' }] });
        const form = await app.request({
            method: 'POST', url: '/token', as: null, headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ grant_type: 'password', username: 'admin', password: 'start123' }).toString(), remoteAddress: '10.9.0.1',
        });
        expect(form.statusCode, form.body).toBe(200);
    });

    it('middlewareQuery: depth, list length and parameter count answer 400 with issues', async () => {
        const expectIssue = async (url: string, code: string) => {
            const response = await app.request({ method: 'GET', url, remoteAddress: '10.9.0.2' });
            expect(response.statusCode, url).toBe(400);
            expect(response.json(), url).toMatchObject({ issues: [{ code }] });
        };
        await expectIssue('/users?filter[a][b]=1', 'too_deep');
        await expectIssue('/users?fields=id&fields=name&fields=email', 'too_many_values');
        await expectIssue(`/users?${Array.from({ length: 11 }, (_, i) => `p${i}=1`).join('&')}`, 'too_many_parameters');
        expect((await app.request({ method: 'GET', url: '/users?filter[name]=admin', remoteAddress: '10.9.0.2' })).statusCode).toBe(200);
    });

    it('middlewareCookie=false: the sign-in page\'s CSRF cookie is not read, so its form is refused', async () => {
        const world = await browserWorld(app);
        const client = browser(app, '10.9.0.3');
        const page = await client.authorize(authorizeParams(world).params);
        expect(page.statusCode).toBe(200);
        const answer = await client.submit(page, { username: world.user.name, password: world.user.password });
        expect(answer.statusCode).not.toBe(302);
    });
}, ['sqlite']);

describeEachDialect('middlewareRateLimit', (dialect) => {
    const replaced = useTestApp(dialect, { middlewareRateLimit: { max: 3 } });
    const lifted = useTestApp(dialect, { middlewareRateLimit: false, rateLimit: { anonymousMax: 2 } });

    const statuses = async (app: TestApp, count: number, remoteAddress: string) => {
        const answers = [];
        for (let i = 0; i < count; i += 1) answers.push(await app.request({ method: 'GET', url: '/realms', as: null, remoteAddress }));
        return answers;
    };

    it('{ max }: replaces the three budgets (RATE_LIMIT_ANONYMOUS_MAX 1200 becomes 3)', async () => {
        const answers = await statuses(replaced, 4, '10.9.1.1');
        expect(answers[0]!.headers['ratelimit-limit']).toBe('3');
        expect(answers.map((answer) => answer.statusCode)).toEqual([401, 401, 401, 429]);
    });

    it('false: the budgets are lifted (RATE_LIMIT_ANONYMOUS_MAX 2 is never reached)', async () => {
        const answers = await statuses(lifted, 4, '10.9.1.2');
        expect(answers.map((answer) => answer.statusCode)).toEqual([401, 401, 401, 401]);
    });
}, ['sqlite']);
