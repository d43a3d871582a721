import { RealmScope } from '@realmgate/core';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBus, type BusMessage, type EntityEvent } from '../../src/bus/bus.js';
import { ADMIN, startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { actorWith, createRealm, FIXTURE_PASSWORD, uniqueName } from '../grant-fixtures.js';
import { freePort } from '../network.js';
import { login } from '../sessions.js';

/*
 * The realtime bus. Entity events reach a socket after the commit, only when its
 * caller may read the row (the collection's read permission on the row's realm, one engine), with
 * no withheld column (spec Events 5); a socket whose credential ended hears nothing more.
 */

describe('the in-process bus', () => {
    it('delivers to every listener until it unsubscribes; a throwing listener is reported and spares the others', () => {
        const reported: unknown[] = [];
        const bus = createMemoryBus((error) => reported.push(error));
        const heard: BusMessage[] = [];
        bus.subscribe(() => {
            throw new Error('listener fault');
        });
        const off = bus.subscribe((message) => heard.push(message));
        bus.publish({ kind: 'catalog' });
        off();
        bus.publish({ kind: 'resync' });
        expect(heard).toEqual([{ kind: 'catalog' }]);
        expect(reported).toHaveLength(2);
    });
});

/** a connected socket and the events it heard */
interface Listener {
    socket: Socket;
    events: EntityEvent[];
    subscribe(collection: string): Promise<{ ok: boolean; code?: string }>;
}

describeEachDialect('realtime: entity events over socket.io', (dialect) => {
    let app: TestApp;
    let url: string;
    const sockets: Socket[] = [];

    beforeAll(async () => {
        const port = await freePort();
        url = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl: url });
        await app.app.listen({ port, host: '127.0.0.1' });
    });
    afterEach(() => {
        for (const socket of sockets.splice(0)) socket.disconnect();
    });
    afterAll(async () => app?.dispose());

    const open = (options: { token?: string; cookie?: string; origin?: string }): Promise<Listener> => new Promise((resolve, reject) => {
        const socket = connect(url, {
            // the server's path is socket.io's default, /socket.io
            transports: ['websocket'], reconnection: false,
            ...(options.token ? { auth: { token: options.token } } : {}),
            extraHeaders: { ...(options.cookie ? { cookie: options.cookie } : {}), ...(options.origin ? { origin: options.origin } : {}) },
        });
        sockets.push(socket);
        const events: EntityEvent[] = [];
        socket.on('event', (event: EntityEvent) => events.push(event));
        socket.once('connect', () => resolve({
            socket, events,
            subscribe: (collection) => socket.timeout(5_000).emitWithAck('subscribe', { collection }),
        }));
        socket.once('connect_error', reject);
    });

    const nameOf = async (userId: string) => (await app.deps.db.selectFrom('auth_users').select('name').where('id', '=', userId).executeTakeFirstOrThrow()).name;
    const adminToken = async () => (await login(app, (await app.json<{ data: Array<{ id: string }> }>({ method: 'GET', url: '/realms?filter[name]=master' }, 200)).data[0]!.id, ADMIN.name, ADMIN.password)).accessToken;

    /**
     * Waits until `listener` heard an event about `id` (the bus delivers after the write answered):
     * a bounded number of short waits, never a verdict from the clock.
     */
    async function heardAbout(listener: Listener, id: string): Promise<EntityEvent> {
        for (let attempt = 0; attempt < 200; attempt++) {
            const event = listener.events.find((candidate) => candidate.id === id);
            if (event) return event;
            await new Promise((wake) => setTimeout(wake, 10));
        }
        throw new Error(`no event about ${id}: heard ${JSON.stringify(listener.events.map((event) => event.name))}`);
    }

    /** a marker write every subscriber of users may read, so "heard nothing about X" is decided once it arrived */
    async function barrier(listener: Listener, realmId: string): Promise<void> {
        const marker = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: uniqueName('marker'), realmId } }, 201);
        await heardAbout(listener, marker.data.id);
    }

    it('refuses a socket without a valid credential', async () => {
        await expect(open({})).rejects.toThrow(/unauthorized/);
        await expect(open({ token: 'not.a.token' })).rejects.toThrow(/unauthorized/);
    });

    it('delivers a committed write to a subscriber that may read it, without withheld columns', async () => {
        const listener = await open({ token: await adminToken() });
        expect(await listener.subscribe('users')).toEqual({ ok: true });
        expect(await listener.subscribe('no-such-collection')).toMatchObject({ ok: false, code: 'invalid_request' });
        const realmId = await createRealm(app);
        const created = await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: uniqueName('bus-user'), email: 'secret@example.com', password: 'bus-password-1', realmId },
        }, 201);
        const event = await heardAbout(listener, created.data.id);
        expect(event).toMatchObject({ name: 'user.created', entity: 'user', id: created.data.id, realmId });
        // spec Events 5: never a column withheld from default reads
        const text = JSON.stringify(event);
        expect(text).not.toContain('secret@example.com');
        expect(text).not.toContain('bus-password-1');
        expect(event.data).not.toHaveProperty('email');
        expect(event.data).not.toHaveProperty('password');

        await app.json({ method: 'POST', url: `/users/${created.data.id}`, payload: { displayName: 'Renamed' } }, 200);
        await app.request({ method: 'DELETE', url: `/users/${created.data.id}` });
        for (let attempt = 0; attempt < 200 && listener.events.filter((candidate) => candidate.id === created.data.id).length < 3; attempt++) {
            await new Promise((wake) => setTimeout(wake, 10));
        }
        expect(listener.events.filter((candidate) => candidate.id === created.data.id).map((candidate) => candidate.name))
            .toEqual(['user.created', 'user.updated', 'user.deleted']);
    });

    it('keeps each realm to itself: a realm administrator hears its own realm only; no read permission, no subscription', async () => {
        const realmA = await createRealm(app);
        const realmB = await createRealm(app);
        const adminOfA = await actorWith(app, realmA, ['user_read'], RealmScope.OWN);
        const adminToken_ = (await login(app, realmA, await nameOf(adminOfA.id), FIXTURE_PASSWORD)).accessToken;
        const listener = await open({ token: adminToken_ });
        expect(await listener.subscribe('users')).toEqual({ ok: true });
        // a permission it does not hold at all: refused at subscription, like GET /clients would be
        expect(await listener.subscribe('clients')).toMatchObject({ ok: false, code: 'permission_denied' });

        const foreign = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: uniqueName('foreign'), realmId: realmB } }, 201);
        const own = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: uniqueName('own'), realmId: realmA } }, 201);
        await heardAbout(listener, own.data.id);
        await barrier(listener, realmA);
        expect(listener.events.some((event) => event.id === foreign.data.id)).toBe(false);
        expect(listener.events.every((event) => event.realmId === realmA)).toBe(true);
    });

    it('stops at the next event once the credential ended: a revoked session hears nothing more and is disconnected', async () => {
        const realmId = await createRealm(app);
        const reader = await actorWith(app, realmId, ['user_read'], RealmScope.OWN);
        const session = await login(app, realmId, await nameOf(reader.id), FIXTURE_PASSWORD);
        const listener = await open({ token: session.accessToken });
        expect(await listener.subscribe('users')).toEqual({ ok: true });
        const disconnected = new Promise<void>((resolve) => listener.socket.once('disconnect', () => resolve()));
        expect((await app.request({ method: 'DELETE', url: `/sessions/${session.sessionId}` })).statusCode).toBeLessThan(300);
        const after = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: uniqueName('after'), realmId } }, 201);
        await disconnected;
        expect(listener.events.some((event) => event.id === after.data.id)).toBe(false);
    });

    it('takes the console session cookie only from the server\'s own origin (cross-site WebSocket hijacking)', async () => {
        const realmId = await createRealm(app);
        const reader = await actorWith(app, realmId, ['user_read'], RealmScope.OWN);
        const { createBrowserSession } = await import('../../src/oauth2/authorize/sessions.js');
        const created = await createBrowserSession(app.deps.db, app.deps.handle.dialect, {
            userId: reader.id, realmId, ipAddress: null, userAgent: null, maxAge: 600, cookie: true, acr: 'urn:realmgate:acr:pwd',
        });
        const cookie = `realmgate_session=${created.cookie!}`;
        await expect(open({ cookie, origin: 'https://evil.example' })).rejects.toThrow(/unauthorized/);
        await expect(open({ cookie })).rejects.toThrow(/unauthorized/);
        const listener = await open({ cookie, origin: new URL(url).origin });
        expect(await listener.subscribe('users')).toEqual({ ok: true });
    });
});
