import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { expect, it } from 'vitest';
import { createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createUser } from '../identities.js';
import { toDbDate } from '../../src/db/values.js';
import { SESSION_TOUCH_INTERVAL_MS, sessionTouchDue } from '../../src/storage/session-tokens.js';

type Tokens = { access_token: string; refresh_token: string };

/*
 * RFC 9700 §4.14.2 rotation in place: a refresh token chain keeps one auth_session_tokens row whose
 * `jti` names the usable token; a rotation moves it to the successor, so the spent token is a
 * replay. The session's seen_at and expiry move when they are a minute stale, not on every rotation.
 */
describeEachDialect('refresh token rotation in place', (dialect) => {
    const app = useTestApp(dialect);

    const signIn = async () => {
        const realmId = await createRealm(app, `rotation-${randomUUID().slice(0, 6)}`);
        const user = await createUser(app, realmId, undefined, { password: 'rotation-password-1' });
        const tokens = await app.json<Tokens>({
            method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: user.name, password: 'rotation-password-1', realm_id: realmId },
        }, 200);
        return { realmId, tokens, basic: app.basic(user.name, 'rotation-password-1') };
    };
    const refresh = (token: string) => app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: token } });
    const rowsOf = (sessionId: string) => app.deps.db.selectFrom('auth_session_tokens').select(['id', 'jti', 'expires_at'])
        .where('session_id', '=', sessionId).where('kind', '=', 'refresh_token').execute();
    const sessionRow = (sessionId: string) => app.deps.db.selectFrom('auth_sessions').select(['seen_at', 'expires_at', 'revoked_at'])
        .where('id', '=', sessionId).executeTakeFirstOrThrow();
    const instant = (value: unknown) => new Date(value as string).getTime();

    it('keeps the chain\'s row and moves its jti; the spent token is a replay that ends the session', async () => {
        const { tokens } = await signIn();
        const sessionId = decodeJwt(tokens.refresh_token).session_id as string;
        const first = decodeJwt(tokens.refresh_token).jti!;
        expect(await rowsOf(sessionId)).toEqual([expect.objectContaining({ id: first, jti: first })]);

        const rotated = await refresh(tokens.refresh_token);
        expect(rotated.statusCode, rotated.body).toBe(200);
        const successor = (rotated.json() as Tokens).refresh_token;
        expect(await rowsOf(sessionId)).toEqual([expect.objectContaining({ id: first, jti: decodeJwt(successor).jti })]);

        const replay = await refresh(tokens.refresh_token);
        expect(replay.statusCode).toBe(400);
        expect(replay.json()).toMatchObject({ error: 'invalid_grant' });
        expect((await sessionRow(sessionId)).revoked_at).not.toBeNull();
        expect((await refresh(successor)).statusCode).toBe(400);
    });

    it('a row written before the jti column (its id the jti) rotates, answers introspection and revocation', async () => {
        const { tokens, realmId, basic } = await signIn();
        const sessionId = decodeJwt(tokens.refresh_token).session_id as string;
        await app.deps.db.updateTable('auth_session_tokens').set({ jti: null }).where('session_id', '=', sessionId).execute();
        const introspected = await app.json<{ active: boolean }>({ method: 'POST', url: '/token/introspect', payload: { token: tokens.refresh_token } }, 200);
        expect(introspected.active).toBe(true);
        const rotated = await refresh(tokens.refresh_token);
        expect(rotated.statusCode, rotated.body).toBe(200);
        const successor = (rotated.json() as Tokens).refresh_token;
        expect((await app.json<{ active: boolean }>({ method: 'POST', url: '/token/introspect', payload: { token: tokens.refresh_token } }, 200)).active).toBe(false);
        expect((await app.json<{ active: boolean }>({ method: 'POST', url: '/token/introspect', payload: { token: successor } }, 200)).active).toBe(true);
        // RFC 7009 §2.1: a token issued to no client is revoked by its own user
        expect((await app.request({ method: 'POST', url: '/token/revoke', as: basic, payload: { token: successor, realm_id: realmId } })).statusCode).toBe(200);
        expect(await rowsOf(sessionId)).toEqual([]);
    });

    it('a refresh token this process signed is not re-verified, yet its key\'s mark, row and realm are read on every use', async () => {
        const { tokens } = await signIn();
        const { kid } = JSON.parse(Buffer.from(tokens.refresh_token.split('.')[0]!, 'base64url').toString()) as { kid: string };
        await app.json({ method: 'POST', url: `/keys/${kid}`, payload: { status: 'disabled' } }, 200);
        const refused = await refresh(tokens.refresh_token);
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('disabled') });
        // spec States: re-enabling the key makes its unexpired tokens valid again
        await app.json({ method: 'POST', url: `/keys/${kid}`, payload: { status: 'active' } }, 200);
        const rotated = await refresh(tokens.refresh_token);
        expect(rotated.statusCode, rotated.body).toBe(200);
        // a token altered after signing is no token this process signed: its signature is checked
        const [header, payload] = (rotated.json() as Tokens).refresh_token.split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
        const altered = `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: `${String(claims.scope)} extra` })).toString('base64url')}.${(rotated.json() as Tokens).refresh_token.split('.')[2]}`;
        const forged = await refresh(altered);
        expect(forged.statusCode).toBe(400);
        expect(forged.json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('moves the session\'s seen_at and expiry once they are a minute stale, and leaves them otherwise', async () => {
        const { tokens } = await signIn();
        const sessionId = decodeJwt(tokens.refresh_token).session_id as string;
        const rotated = await refresh(tokens.refresh_token);
        expect(rotated.statusCode, rotated.body).toBe(200);
        // the login wrote the session a moment ago: the rotation left it as it was
        const fresh = await sessionRow(sessionId);
        // stale by more than the interval: the next rotation writes both
        const stale = new Date(Date.now() - SESSION_TOUCH_INTERVAL_MS - 5_000);
        const staleExpiry = new Date(Date.now() + 120_000);
        await app.deps.db.updateTable('auth_sessions').set({ seen_at: toDbDate(dialect, stale), expires_at: toDbDate(dialect, staleExpiry) }).where('id', '=', sessionId).execute();
        await app.deps.db.updateTable('auth_session_tokens').set({ expires_at: toDbDate(dialect, staleExpiry) }).where('session_id', '=', sessionId).execute();
        const again = await refresh((rotated.json() as Tokens).refresh_token);
        expect(again.statusCode, again.body).toBe(200);
        const touched = await sessionRow(sessionId);
        expect(instant(touched.seen_at)).toBeGreaterThan(stale.getTime() + SESSION_TOUCH_INTERVAL_MS);
        const successorExp = decodeJwt((again.json() as Tokens).refresh_token).exp! * 1000;
        expect(instant(touched.expires_at)).toBe(successorExp);
        expect(instant((await rowsOf(sessionId))[0]!.expires_at)).toBe(successorExp);
        expect(instant(fresh.expires_at)).toBeGreaterThan(staleExpiry.getTime());
    });
});

it('sessionTouchDue: due when seen_at is unset or a minute old, or the expiry would move by a minute', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const successor = new Date(now + 3 * 86_400_000);
    expect(sessionTouchDue({ seenAt: null, expiresAt: successor }, successor, now)).toBe(true);
    expect(sessionTouchDue({ seenAt: new Date(now - 10_000), expiresAt: new Date(successor.getTime() - 10_000) }, successor, now)).toBe(false);
    expect(sessionTouchDue({ seenAt: new Date(now - SESSION_TOUCH_INTERVAL_MS), expiresAt: successor }, successor, now)).toBe(true);
    expect(sessionTouchDue({ seenAt: new Date(now - 10_000), expiresAt: new Date(now + 3_600_000) }, successor, now)).toBe(true);
});
