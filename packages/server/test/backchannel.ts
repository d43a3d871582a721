import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { TestApp } from './app.js';
import { createRealm, uniqueName } from './grant-fixtures.js';
import { createClient } from './identities.js';

/*
 * A relying party's back-channel logout endpoint on loopback (OIDC Back-Channel Logout 1.0 §2.5):
 * records every POST. Tests wait for deliveries with app.deps.backchannelLogout.settled(), which
 * resolves once every delivery answered or failed, so no sleep is needed.
 */

export interface Delivery {
    contentType: string | undefined;
    /** the form's logout_token */
    token: string | null;
}

export interface BackchannelListener {
    uri: string;
    received: Delivery[];
    /** how the listener answers: 200, another status, or never (the delivery times out) */
    answer: number | 'hang';
    close(): Promise<void>;
}

export async function startListener(): Promise<BackchannelListener> {
    const received: Delivery[] = [];
    const hanging = new Set<() => void>();
    const listener: BackchannelListener = { uri: '', received, answer: 200, close: () => Promise.resolve() };
    const server: Server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
            const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
            received.push({ contentType: request.headers['content-type'], token: form.get('logout_token') });
            if (listener.answer === 'hang') {
                hanging.add(() => response.destroy());
                return;
            }
            response.writeHead(listener.answer).end();
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    listener.uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/backchannel-logout`;
    listener.close = async () => {
        for (const end of hanging) end();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return listener;
}

/**
 * Verifies a logout token as a relying party does (§2.6): signature against the realm's JWKS,
 * typ `logout+jwt`, iss, aud; returns its claims after checking the members §2.4 requires.
 */
async function verifyLogoutToken(app: TestApp, token: string, realm: { id: string; name: string }, clientId: string): Promise<JWTPayload> {
    const jwks = await app.json<{ keys: [] }>({ method: 'GET', url: `/realms/${realm.id}/jwks`, as: null }, 200);
    const issuer = `${app.deps.config.publicUrl.replace(/\/+$/, '')}/realms/${realm.name}`;
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
        issuer, audience: clientId, typ: 'logout+jwt', algorithms: ['RS256'],
    });
    expect(decodeProtectedHeader(token).typ).toBe('logout+jwt');
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({
        kind: 'logout_token',
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    });
    expect(typeof payload.jti).toBe('string');
    expect(typeof payload.iat).toBe('number');
    expect(payload.exp! - payload.iat!).toBeGreaterThan(0);
    expect(payload).not.toHaveProperty('nonce');
    return payload;
}

/** The logout tokens the listener received since it was cleared, each verified, as [sub, sid]. */
export async function deliveredSessions(app: TestApp, listener: BackchannelListener, realm: { id: string; name: string }, clientId: string): Promise<Array<[string, string]>> {
    await app.deps.backchannelLogout.settled();
    const out: Array<[string, string]> = [];
    for (const delivery of listener.received.splice(0)) {
        expect(delivery.contentType).toBe('application/x-www-form-urlencoded');
        const claims = await verifyLogoutToken(app, delivery.token!, realm, clientId);
        out.push([claims.sub!, claims.sid as string]);
    }
    return out.sort();
}

export interface BackchannelWorld {
    realm: { id: string; name: string };
    listener: BackchannelListener;
    /** a client of the realm whose backchannelLogoutUri is the listener */
    client: Awaited<ReturnType<typeof createClient>>;
}

/**
 * A realm, a loopback listener and a client registered with it, set up before the suite's tests;
 * before each test the listener forgets what it received and answers 200 again.
 */
export function useBackchannelWorld(app: TestApp): BackchannelWorld {
    const world = { realm: { id: '', name: uniqueName('bcl') } } as BackchannelWorld;
    beforeAll(async () => {
        world.realm.id = await createRealm(app, world.realm.name);
        world.listener = await startListener();
        world.client = await createClient(app, world.realm.id, undefined, { backchannelLogoutUri: world.listener.uri });
    });
    afterAll(async () => world.listener.close());
    beforeEach(() => {
        world.listener.received.length = 0;
        world.listener.answer = 200;
    });
    return world;
}
