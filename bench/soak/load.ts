/**
 * The soak's mixed load through HAProxy: authorization-code sign-ins through the API form of
 * `POST /authorize`, client_credentials, introspection, refresh with rotation (and, now and then,
 * a deliberate replay of a spent refresh token), bearer reads and administrator writes. Every
 * request is recorded (records.ts) with the token it presented.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AcknowledgedWrite, Operation, RequestRecord, TokenOwner } from './records.js';

const FORM = 'application/x-www-form-urlencoded';
export const REDIRECT_URI = 'https://soak.example/cb';
/** a request left unanswered this long counts as failed (status 0) */
const REQUEST_TIMEOUT_MS = 15_000;

export class Recorder {
    readonly requests: RequestRecord[] = [];
    readonly writes: AcknowledgedWrite[] = [];
    private readonly origin = performance.now();

    now(): number {
        return Math.round(performance.now() - this.origin);
    }

    /** Sends one request and records it; `accepted` judges a token-bearing answer. */
    async send(operation: Operation, url: string, init: RequestInit, extra: Partial<Pick<RequestRecord, 'token' | 'refresh' | 'replica'>> & {
        accepted?: (status: number, body: unknown) => boolean;
    } = {}): Promise<{ status: number; body: unknown }> {
        const sentAt = this.now();
        let status = 0;
        let body: unknown;
        try {
            const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
            const text = await response.text();
            status = response.status;
            try {
                body = text ? JSON.parse(text) : undefined;
            } catch {
                body = text;
            }
        } catch {
            status = 0;
        }
        const record: RequestRecord = { operation, sentAt, answeredAt: this.now(), status };
        if (extra.replica) record.replica = extra.replica;
        if (extra.token) record.token = extra.token;
        if (extra.refresh) record.refresh = extra.refresh;
        if (extra.accepted && status !== 0 && status < 500) record.accepted = extra.accepted(status, body);
        this.requests.push(record);
        return { status, body };
    }
}

export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** The claims and key id of an access token (a JWT the soak does not verify: it only names the owner). */
function ownerOf(accessToken: string): TokenOwner & { sessionId: string } {
    const [header, payload] = accessToken.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, string>);
    return { userId: payload!.sub!, sessionId: payload!.session_id!, kid: header!.kid! };
}

export interface LoadUser {
    id: string;
    name: string;
    password: string;
    /** `Bearer …` issued without a client: what `POST /authorize` (API form) accepts */
    bearer: string;
}

export interface SoakFixtures {
    realmId: string;
    realmName: string;
    service: { id: string; authorization: string };
    publicClientId: string;
    users: LoadUser[];
    victim: LoadUser;
    adminBearer: string;
}

export interface Session {
    userId: string;
    sessionId: string;
    kid: string;
    access: string;
    refresh: string;
    busy: boolean;
    dead: boolean;
}

const POOL_SIZE = 150;
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

/** The state the workers share, and one operation per call of `step`. */
export function createLoad(baseUrl: string, fixtures: SoakFixtures, recorder: Recorder) {
    const sessions: Session[] = [];
    const spent: { token: string; session: Session }[] = [];
    let writes = 0;
    const pick = () => {
        const candidates = sessions.filter((session) => !session.busy && !session.dead);
        return candidates.length === 0 ? undefined : candidates[Math.floor(Math.random() * candidates.length)];
    };
    const bearerOwner = (user: LoadUser): TokenOwner => ownerOf(user.bearer.slice('Bearer '.length));
    /** a user bearer whose key was deleted is replaced (password grant); a deactivated user gets none */
    const renewBearer = async (user: LoadUser) => {
        const answer = await recorder.send('sign-in', `${baseUrl}/token`, {
            method: 'POST', headers: { 'content-type': FORM },
            body: new URLSearchParams({ grant_type: 'password', username: user.name, password: user.password, realm_name: fixtures.realmName }),
        });
        if (answer.status === 200) user.bearer = `Bearer ${(answer.body as { access_token: string }).access_token}`;
    };

    const signIn = async () => {
        const user = Math.random() < 0.2 ? fixtures.victim : fixtures.users[Math.floor(Math.random() * fixtures.users.length)]!;
        const minted = await recorder.send('code-mint', `${baseUrl}/authorize`, {
            method: 'POST', headers: { authorization: user.bearer, 'content-type': 'application/json' },
            body: JSON.stringify({
                response_type: 'code', client_id: fixtures.publicClientId, redirect_uri: REDIRECT_URI, scope: 'openid profile',
                state: randomBytes(8).toString('hex'), code_challenge: challenge, code_challenge_method: 'S256',
            }),
        }, { token: bearerOwner(user), accepted: (status) => status === 200 });
        if (minted.status === 401 && user !== fixtures.victim) await renewBearer(user);
        if (minted.status !== 200) return;
        const code = (minted.body as { code: string }).code;
        const issued = await recorder.send('sign-in', `${baseUrl}/token`, {
            method: 'POST', headers: { 'content-type': FORM },
            body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: fixtures.publicClientId, redirect_uri: REDIRECT_URI, code_verifier: verifier }),
        });
        if (issued.status !== 200) return;
        const tokens = issued.body as { access_token: string; refresh_token?: string };
        if (!tokens.refresh_token) throw new Error('the authorization-code answer carries no refresh token: the soak needs one');
        const owner = ownerOf(tokens.access_token);
        const session: Session = { ...owner, userId: owner.userId!, kid: owner.kid!, access: tokens.access_token, refresh: tokens.refresh_token, busy: false, dead: false };
        if (sessions.length < POOL_SIZE) sessions.push(session);
        else sessions[Math.floor(Math.random() * POOL_SIZE)] = session;
    };

    const clientCredentials = () => recorder.send('client-credentials', `${baseUrl}/token`, {
        method: 'POST', headers: { 'content-type': FORM, authorization: fixtures.service.authorization },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });

    const introspect = async (session: Session, url = baseUrl, replica?: string) => recorder.send(replica ? 'probe' : 'introspection', `${url}/token/introspect`, {
        method: 'POST', headers: { 'content-type': FORM, authorization: fixtures.service.authorization },
        body: new URLSearchParams({ token: session.access }),
    }, { token: { userId: session.userId, sessionId: session.sessionId, kid: session.kid }, accepted: (status, body) => status === 200 && (body as { active?: boolean }).active === true, ...(replica ? { replica } : {}) });

    const bearerRead = async (session: Session, url = baseUrl, replica?: string) => recorder.send(replica ? 'probe' : 'bearer-read', `${url}/users/@me`, {
        headers: { authorization: `Bearer ${session.access}` },
    }, { token: { userId: session.userId, sessionId: session.sessionId, kid: session.kid }, accepted: (status) => status >= 200 && status < 300, ...(replica ? { replica } : {}) });

    const redeem = (session: Session, token: string, replay: boolean) => recorder.send('refresh', `${baseUrl}/token`, {
        method: 'POST', headers: { 'content-type': FORM },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: fixtures.publicClientId }),
    }, { token: { userId: session.userId, sessionId: session.sessionId }, refresh: { token, family: session.sessionId, replay }, accepted: (status) => status === 200 });

    const refresh = async () => {
        const session = pick();
        if (!session) return signIn();
        session.busy = true;
        const old = session.refresh;
        const answer = await redeem(session, old, false);
        if (answer.status === 200) {
            const tokens = answer.body as { access_token: string; refresh_token: string };
            spent.push({ token: old, session });
            if (spent.length > 500) spent.shift();
            Object.assign(session, { access: tokens.access_token, refresh: tokens.refresh_token, kid: ownerOf(tokens.access_token).kid });
        } else {
            // refused (revoked, deactivated) or unknown (no answer: it may have rotated): not sent again
            session.dead = true;
        }
        session.busy = false;
    };

    /** A spent refresh token sent again: refused, and the family's current token refused after it. */
    const replay = async () => {
        const entry = spent.find((candidate) => !candidate.session.busy && !candidate.session.dead);
        if (!entry) return refresh();
        const { session } = entry;
        session.busy = true;
        await redeem(session, entry.token, true);
        await redeem(session, session.refresh, false);
        session.dead = true;
        session.busy = false;
    };

    const adminWrite = async () => {
        const name = `soak-role-${process.pid}-${writes++}`;
        const answer = await recorder.send('admin-write', `${baseUrl}/roles`, {
            method: 'POST', headers: { authorization: fixtures.adminBearer, 'content-type': 'application/json' },
            body: JSON.stringify({ realmId: fixtures.realmId, name }),
        });
        if (answer.status === 201) recorder.writes.push({ collection: 'roles', id: (answer.body as { data: { id: string } }).data.id, acknowledgedAt: recorder.now() });
    };

    const MIX: [number, () => Promise<unknown>][] = [
        [2, signIn],
        [2, clientCredentials],
        [3, () => (pick() ? introspect(pick()!) : signIn())],
        [2.5, refresh],
        [0.1, replay],
        [4, () => (pick() ? bearerRead(pick()!) : signIn())],
        [1, adminWrite],
    ];
    const total = MIX.reduce((sum, [weight]) => sum + weight, 0);

    return {
        sessions,
        introspect,
        bearerRead,
        pick,
        async step(): Promise<void> {
            let roll = Math.random() * total;
            for (const [weight, operation] of MIX) {
                roll -= weight;
                if (roll <= 0) {
                    await operation();
                    return;
                }
            }
        },
    };
}

/** `width` workers running `step` until `stopped()` holds; resolves when each finished its last request. */
export async function runWorkers(width: number, step: () => Promise<void>, stopped: () => boolean): Promise<void> {
    await Promise.all(Array.from({ length: width }, async () => {
        while (!stopped()) await step();
    }));
}
