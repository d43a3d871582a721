import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { beforeEach, expect, it } from 'vitest';
import { createActor } from '../../test/actors.js';
import { useTestApp } from '../../test/app.js';
import { deliveredSessions, startListener, useBackchannelWorld } from '../../test/backchannel.js';
import { describeEachDialect } from '../../test/databases.js';
import { createClient } from '../../test/identities.js';
import { login, probe } from '../../test/sessions.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { createLogoutTokenIssuer } from '../tokens/logout-token.js';

/**
 * Back-Channel Logout 1.0 delivery (spec Events 6): best effort — a failing, slow or non-2xx
 * endpoint is logged at warn (never with the token) and the logout stands; the cascade to the
 * sessions signed in through a revoked one; one announcement per session under concurrent
 * revocations; a logout_token is accepted nowhere.
 */
describeEachDialect('back-channel logout delivery, cascade and refusal', (dialect) => {
    const lines: string[] = [];
    const stream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
    const app = useTestApp(dialect, {}, { logger: Fastify({ logger: { level: 'warn', stream } }).log });
    const world = useBackchannelWorld(app);
    beforeEach(() => {
        lines.length = 0;
    });

    const signIn = async (through = world.client) => {
        const actor = await createActor(app, world.realm.id, []);
        return { actor, session: await login(app, world.realm.id, actor.name, 'secret-password', { client_id: through.name, client_secret: through.secret }) };
    };
    const warnings = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.level === 40);

    for (const answer of [500, 302, 'hang'] as const) {
        it(`an endpoint answering ${answer === 'hang' ? 'never (timed out)' : answer} does not fail the logout and is logged without the token`, async () => {
            world.listener.answer = answer;
            const { session } = await signIn();
            const ended = await app.request({ method: 'DELETE', url: `/sessions/${session.sessionId}` });
            expect(ended.statusCode, ended.body).toBe(200);
            // off the request path: the revocation answered while the delivery is still under way
            let delivered = false;
            const settled = app.deps.backchannelLogout.settled().then(() => { delivered = true; });
            // had the revocation waited for the delivery, nothing would be pending and this turn would settle it
            await new Promise((resolve) => setImmediate(resolve));
            if (answer === 'hang') expect(delivered).toBe(false);
            expect(await probe(app, session.bearer)).toBe(401);
            await settled;
            expect(world.listener.received).toHaveLength(1);
            const logged = warnings();
            expect(logged).toHaveLength(1);
            expect(logged[0]).toMatchObject({ clientId: world.client.id, sessionId: session.sessionId, ...(answer === 'hang' ? { reason: expect.stringContaining('TimeoutError') } : { status: answer }) });
            expect(lines.join('')).not.toContain(world.listener.received[0]!.token!);
        });
    }

    it('an unreachable endpoint is logged and the logout stands', async () => {
        const gone = await startListener();
        await gone.close();
        const unreachable = await createClient(app, world.realm.id, undefined, { backchannelLogoutUri: gone.uri });
        const { session } = await signIn(unreachable);
        await app.json({ method: 'DELETE', url: `/sessions/${session.sessionId}` }, 200);
        await app.deps.backchannelLogout.settled();
        expect(warnings()).toEqual([expect.objectContaining({ clientId: unreachable.id, sessionId: session.sessionId, msg: 'back-channel logout delivery failed' })]);
    });

    it('revoking a session revokes the sessions signed in through it, and each child\'s client is told', async () => {
        const other = await createClient(app, world.realm.id, undefined, { backchannelLogoutUri: world.listener.uri });
        const actor = await createActor(app, world.realm.id, []);
        const browser = await login(app, world.realm.id, actor.name, 'secret-password');
        const first = await login(app, world.realm.id, actor.name, 'secret-password', { client_id: world.client.name, client_secret: world.client.secret });
        const second = await login(app, world.realm.id, actor.name, 'secret-password', { client_id: other.name, client_secret: other.secret });
        const unrelated = await login(app, world.realm.id, actor.name, 'secret-password', { client_id: world.client.name, client_secret: world.client.secret });
        // application sessions signed in through the browser session (each application session's parent_id)
        await app.deps.db.updateTable('auth_sessions').set({ parent_id: browser.sessionId }).where('id', 'in', [first.sessionId, second.sessionId]).execute();

        const ended = await app.deps.sessions.revoke(app.deps.db, browser.sessionId);
        expect(ended.map((session) => session.id).sort()).toEqual([browser.sessionId, first.sessionId, second.sessionId].sort());
        for (const session of [browser, first, second]) expect(await probe(app, session.bearer)).toBe(401);
        expect(await probe(app, unrelated.bearer)).toBe(200);
        await app.deps.backchannelLogout.settled();
        const byAudience = world.listener.received.splice(0).map((delivery) => JSON.parse(Buffer.from(delivery.token!.split('.')[1]!, 'base64url').toString()) as { aud: string; sid: string });
        expect(byAudience.map((claims) => [claims.aud, claims.sid]).sort()).toEqual([[world.client.id, first.sessionId], [other.id, second.sessionId]].sort());
    });

    it('a revocation whose transaction rolls back ends nothing and announces nothing', async () => {
        const { session } = await signIn();
        const failing = writeTransaction(app.deps, { preload: () => Promise.resolve() }, async (tx) => {
            expect(await app.deps.sessions.revoke(tx, session.sessionId)).toHaveLength(1);
            throw new Error('rolled back');
        });
        await expect(failing).rejects.toThrow('rolled back');
        expect(await probe(app, session.bearer)).toBe(200);
        await app.deps.backchannelLogout.settled();
        expect(world.listener.received).toEqual([]);
    });

    it('concurrent revocations of the same session announce it once', async () => {
        const { actor, session } = await signIn();
        const results = await Promise.all([
            app.deps.sessions.revoke(app.deps.db, session.sessionId),
            app.deps.sessions.revoke(app.deps.db, session.sessionId),
            app.deps.sessions.endOfSubject(app.deps.db, { kind: 'user', id: actor.userId }),
        ]);
        expect(results.flat().map((ended) => ended.id)).toEqual([session.sessionId]);
        const again = await signIn();
        const answers = await Promise.all([1, 2].map(() => app.request({ method: 'DELETE', url: `/sessions/${again.session.sessionId}` })));
        expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
        expect(await deliveredSessions(app, world.listener, world.realm, world.client.id)).toEqual([
            [actor.userId, session.sessionId], [again.actor.userId, again.session.sessionId],
        ].sort());
    });

    it('a logout_token is no bearer, is inactive at introspection and revokes nothing', async () => {
        const { actor, session } = await signIn();
        const token = await createLogoutTokenIssuer(app.deps.keys, app.deps.config.publicUrl)(app.deps.db, {
            realmId: world.realm.id, realmName: world.realm.name, clientId: world.client.id, sub: actor.userId, sessionId: session.sessionId, idTokenAlgorithm: null,
        });
        expect(await probe(app, `Bearer ${token}`)).toBe(401);
        const introspected = await app.request({ method: 'POST', url: '/token/introspect', payload: { token }, as: app.basic(world.client.id, world.client.secret) });
        expect(introspected.statusCode, introspected.body).toBe(200);
        expect(introspected.json()).toEqual({ active: false });
        const revoked = await app.request({ method: 'POST', url: '/token/revoke', payload: { token }, as: app.basic(world.client.id, world.client.secret) });
        expect(revoked.statusCode, revoked.body).toBe(200);
        expect(await probe(app, session.bearer)).toBe(200);
        await app.deps.backchannelLogout.settled();
        expect(world.listener.received).toEqual([]);
    });
});
