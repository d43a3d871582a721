import { decodeJwt } from 'jose';
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/* Logins and bearer probes the session suites share (real POST /token, no forged rows). */

export interface Login {
    accessToken: string;
    refreshToken: string;
    sessionId: string;
    bearer: string;
}

export async function login(app: TestApp, realmId: string, username: string, password: string, extra: Record<string, string> = {}, userAgent?: string): Promise<Login> {
    const response = await app.request({
        method: 'POST', url: '/token', as: null,
        payload: { grant_type: 'password', username, password, realm_id: realmId, ...extra },
        ...(userAgent ? { headers: { 'user-agent': userAgent } } : {}),
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { access_token: string; refresh_token: string };
    return {
        accessToken: body.access_token,
        refreshToken: body.refresh_token,
        sessionId: decodeJwt(body.access_token).session_id as string,
        bearer: `Bearer ${body.access_token}`,
    };
}

/** The status of GET /users/@me (or /clients/@me) through a token: 200 while its session lives. */
export async function probe(app: TestApp, bearer: string, kind: 'users' | 'clients' = 'users'): Promise<number> {
    return (await app.request({ method: 'GET', url: `/${kind}/@me`, as: bearer })).statusCode;
}

export async function refresh(app: TestApp, refreshToken: string, extra: Record<string, string> = {}) {
    return app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra } });
}

/** DELETE with a query string; returns the response (status checked by the caller). */
export async function del(app: TestApp, url: string, as?: string | null) {
    return app.request({ method: 'DELETE', url, ...(as === undefined ? {} : { as }) });
}

export function issuePaths(body: unknown): string[] {
    return ((body as { issues?: { path: unknown[] }[] }).issues ?? []).map((item) => item.path.join('.'));
}
