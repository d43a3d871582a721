import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findBackchannelTargets, type BackchannelTarget } from '../storage/backchannel-logout.js';
import type { EndedSession } from '../storage/session-revocation.js';
import type { LogoutTokenIssuer } from '../tokens/logout-token.js';
import type { OutboundFetch } from '../outbound/guarded-fetch.js';

/** How long one delivery may take: best effort, never a stuck connection held open (spec Events 6) */
const DELIVERY_TIMEOUT_MS = 2_000;

/** deliveries under way at once per notification: a realm-wide force-logout must not open thousands of connections */
const PARALLEL_DELIVERIES = 8;

/** Where a failed delivery is told: the status or the error, the client and session, never the token. */
export type DeliveryWarning = (detail: Record<string, unknown>, message: string) => void;

export interface BackchannelLogoutDeps {
    db: Kysely<Database>;
    issueLogoutToken: LogoutTokenIssuer;
    warn: DeliveryWarning;
    /**
     * the fetch of the server's outbound connections (outbound/guarded-fetch.ts): a URI that
     * resolves to a loopback, private or link-local address is never POSTed to
     */
    fetch: OutboundFetch;
    /** ms; tests shorten it */
    timeoutMs?: number;
}

export interface BackchannelLogout {
    /** hears of ended sessions (SessionStore's listener): schedules the deliveries and returns at once */
    notify(ended: EndedSession[]): void;
    /** resolves once every delivery scheduled so far (and any it scheduled) has finished: shutdown and tests */
    settled(): Promise<void>;
}

/**
 * Back-Channel Logout 1.0 (spec Events 6): each session a revocation ended whose client registered
 * a backchannel_logout_uri gets a logout token POSTed there (§2.5: form-encoded `logout_token`).
 * Off the request path: notify() only schedules, so the revoking request never waits for the
 * network; a delivery has DELIVERY_TIMEOUT_MS; a failure or an answer other than 2xx (§2.8: the
 * RP answers 200, or 204 with some frameworks) is logged at warn and the logout stands regardless.
 */
export function createBackchannelLogout(deps: BackchannelLogoutDeps): BackchannelLogout {
    const pending = new Set<Promise<void>>();
    const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS;

    const deliver = async (target: BackchannelTarget, session: EndedSession): Promise<void> => {
        const context = { clientId: target.clientId, sessionId: session.id };
        try {
            const token = await deps.issueLogoutToken(deps.db, {
                realmId: target.realmId, realmName: target.realmName, clientId: target.clientId, sub: session.sub, sessionId: session.id,
                idTokenAlgorithm: target.idTokenAlgorithm,
            });
            const answer = await deps.fetch(target.uri, {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: new URLSearchParams({ logout_token: token }).toString(),
                // a redirect is no answer of the RP's (§2.8): not followed, so reported as a failure
                redirect: 'manual',
                signal: AbortSignal.timeout(timeoutMs),
            });
            // the body is not needed; dropping it frees the connection
            await answer.body?.cancel();
            if (answer.status < 200 || answer.status > 299) deps.warn({ ...context, status: answer.status }, 'back-channel logout answered other than 2xx');
        } catch (error) {
            const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
            deps.warn({ ...context, reason }, 'back-channel logout delivery failed');
        }
    };

    const run = async (ended: EndedSession[]): Promise<void> => {
        // §2.4: the logout token's sub is the End-User; a client's own sessions (client_credentials)
        // have none. Spec States: an expiring session sends nothing, nor does revoking one expired.
        const now = Date.now();
        const sessions = ended.filter((session) => session.clientId !== null && session.subKind === 'user' && session.expiresAt.getTime() > now);
        if (sessions.length === 0) return;
        let targets: BackchannelTarget[];
        try {
            targets = await findBackchannelTargets(deps.db, [...new Set(sessions.map((session) => session.clientId!))]);
        } catch (error) {
            deps.warn({ reason: error instanceof Error ? error.message : String(error), sessions: sessions.length }, 'back-channel logout targets could not be read');
            return;
        }
        const byClient = new Map(targets.map((target) => [target.clientId, target]));
        const queue = sessions.flatMap((session) => {
            const target = byClient.get(session.clientId!);
            return target ? [{ target, session }] : [];
        });
        const worker = async () => {
            for (let next = queue.shift(); next; next = queue.shift()) await deliver(next.target, next.session);
        };
        await Promise.all(Array.from({ length: Math.min(PARALLEL_DELIVERIES, queue.length) }, worker));
    };

    return {
        notify(ended) {
            // the next turn of the event loop: nothing of the delivery runs in the revoking request
            const job: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve)).then(() => run(ended))
                .catch((error: unknown) => deps.warn({ reason: error instanceof Error ? error.message : String(error) }, 'back-channel logout failed'))
                .finally(() => pending.delete(job));
            pending.add(job);
        },
        async settled() {
            while (pending.size > 0) await Promise.allSettled([...pending]);
        },
    };
}
