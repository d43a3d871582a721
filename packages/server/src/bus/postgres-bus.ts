import { randomUUID } from 'node:crypto';
import { acknowledgementOf, createSettlements, SETTLE_TIMEOUT_MS } from './settlements.js';
import pg from 'pg';
import { createListeners, type Bus, type BusMessage } from './bus.js';
import { createSelfProbe } from './self-probe.js';

/** What crosses PostgreSQL: the message and the replica that sent it (which delivered it locally already). */
interface Envelope {
    origin: string;
    message: BusMessage;
    /** set by publishSettled: every receiver answers on the acknowledgement channel once delivered */
    settle?: string;
}

/** A replica's self-probe (self-probe.ts) on the channel: heard back by its own listener only, never a message. */
interface ProbeEnvelope {
    origin: string;
    probe: string;
}

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (NOTIFY: "must be shorter than 8000
 * bytes" in the default configuration); the server counts bytes, so does the check.
 */
const PAYLOAD_LIMIT_BYTES = 8_000;
/** The reconnection's first wait and its cap, doubled between failed attempts. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;
/**
 * How often a live bus proves it hears, and how long its probe may take. Together they bound how
 * long a listener cut off silently (no reset, so TCP keepalive would take minutes to hours) still
 * counts as live: under 7 s, against the 60 s an entry may live at most (wire.ts). Every replica
 * hears every probe of the channel, so n replicas cause n² / 5 notifications a second — 20 for ten
 * replicas, nothing beside the writes' own. A NOTIFY round trip takes milliseconds on a database
 * that answers; 2 s is the acknowledgement's bound too (SETTLE_TIMEOUT_MS).
 */
const PROBE_INTERVAL_MS = 5_000;
const PROBE_TIMEOUT_MS = 2_000;
/**
 * A NOTIFY that has not answered by then went to a connection that is gone without a reset: it
 * fails, and the pool drops that connection instead of queueing every later send behind it.
 */
const PUBLISH_TIMEOUT_MS = 5_000;
/** What an operator reads when the bus stops hearing itself: the usual cause and the ways out. */
const DEAF_CONTEXT = 'bus did not hear its own probe; caches serve nothing until it does. Behind a pooler in transaction mode'
    + ' (PgBouncer pool_mode=transaction) LISTEN hears nothing: set DB_BUS_URL to a direct PostgreSQL connection, or REDIS_URL, or CACHES=off';
/** ...and when the probe could not even be sent: the database (or the way to it) is the trouble, named by the error. */
const UNSENT_CONTEXT = 'bus could not send its own probe; caches serve nothing until it hears one';
/**
 * A channel is an identifier (at most 63 bytes): lowercase letters, digits and underscores leave
 * nothing to fold or escape, and room for `_ack` and the listener's `:<pid>` name suffix.
 */
const CHANNEL = /^[a-z_][a-z0-9_]{0,50}$/;

/**
 * One statement: the NOTIFY and how many other processes listen to the channel. A listener is
 * named (application_name) only once it heard its own probe, so every one counted hears this
 * NOTIFY and answers it — a deaf one (behind a pooler) is never counted, and holds no write back;
 * one that is still naming itself is not counted and its answer is extra.
 */
const NOTIFY_COUNTING = `select pg_notify($1, $2), (
    select count(*) from pg_stat_activity
    where datname = current_database() and left(application_name, length($3::text)) = $3::text and pid <> $4
)::int as receivers`;

export interface PostgresBusOptions {
    /** DB_URL or the DB_ parts (db/connect.ts postgresConnection) */
    connection: pg.ClientConfig;
    /** the deployment's channel, an identifier matching CHANNEL: replicas sharing a database share it */
    channel: string;
    /** a listener's error, a malformed message, a failed publish, a lost connection: logged, never thrown at a request */
    report: (error: unknown, context: string) => void;
    /** the bus hears its own probe again after a loss `report` told of: once per recovery */
    recovered?: (context: string) => void;
    /** shorter probes and timeouts than the defaults (tests) */
    timing?: { probeIntervalMs?: number; probeTimeoutMs?: number; publishTimeoutMs?: number };
    /** each listening connection once it LISTENs, before its first probe (tests make it deaf with UNLISTEN) */
    afterListen?: (client: pg.Client) => Promise<void> | void;
}

/**
 * The bus across replicas without Redis (DESIGN.md §4: "pg LISTEN/NOTIFY on a dedicated
 * connection"), with the Redis bus's contract: a publish is delivered to this process's
 * listeners at once and NOTIFYed to the others, which skip their own by origin; a settled publish
 * waits for every other listener's acknowledgement on `<channel>_ack`. LISTEN needs a session of
 * its own — a pooled connection changes hands — so one client listens, named `<channel>:<pid>` in
 * pg_stat_activity (publishers count the listeners by that name; an operator tells them apart by
 * it), and a small pool of the bus's own sends, so a write still announces itself while the
 * listener reconnects. PostgreSQL keeps no notification for a session that is not listening: while
 * the listener is down the bus is not live (caches serve nothing, cache/registry.ts), and once it
 * listens again its listeners are told to resync before anything is cached again.
 *
 * A LISTEN that succeeded proves nothing behind a pooler in transaction mode, nor on a network
 * that went silent: the bus is live only while its listener hears its own probe (self-probe.ts),
 * NOTIFYed through the sending pool — the way the other replicas' messages come. It probes once it
 * listens (the boot waits for that first probe, so a healthy bus starts live) and every
 * PROBE_INTERVAL_MS after; a probe not heard is a lost listener: not live, reported once, the
 * connection replaced, and a resync once a probe is heard again.
 */
export async function createPostgresBus(options: PostgresBusOptions): Promise<Bus> {
    if (!CHANNEL.test(options.channel)) throw new Error(`bus channel "${options.channel}" is not a lowercase identifier of at most 51 characters`);
    const origin = randomUUID();
    const channel = options.channel;
    const ackChannel = `${channel}_ack`;
    const namePrefix = `${channel}:`;
    const listeners = createListeners((error) => options.report(error, 'bus listener failed'));
    const probeIntervalMs = options.timing?.probeIntervalMs ?? PROBE_INTERVAL_MS;
    const probeTimeoutMs = options.timing?.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
    const publisher = new pg.Pool({
        ...options.connection, max: 2, keepAlive: true, idleTimeoutMillis: 0, connectionTimeoutMillis: SETTLE_TIMEOUT_MS,
        query_timeout: options.timing?.publishTimeoutMs ?? PUBLISH_TIMEOUT_MS,
    });
    // an idle connection's error (a server restart): the pool drops it and opens another on demand
    publisher.on('error', (error) => options.report(error, 'bus publishing connection lost'));

    /** the settled publishes waiting: acknowledgements heard, how many are expected (known once the NOTIFY answers) */
    const settlements = createSettlements(options.report);
    let listening: pg.Client | undefined;
    /** the listening backend's pid: left out of the count of receivers (this process delivered already) */
    let listenerPid = -1;
    /** `listening` heard its latest probe and is named: the bus is live */
    let hearing = false;
    /** a loss was reported and no recovery since: each transition is told once */
    let down = false;
    let closed = false;
    let reconnectTimer: NodeJS.Timeout | undefined;
    let probeTimer: NodeJS.Timeout | undefined;
    /** failed reconnections in a row, or listeners that never heard: reset once one hears */
    let attempts = 0;
    const probe = createSelfProbe(
        (nonce) => publisher.query('select pg_notify($1, $2)', [channel, JSON.stringify({ origin, probe: nonce } satisfies ProbeEnvelope)]),
        probeTimeoutMs,
    );

    const acknowledge = (settle: string): void => {
        publisher.query('select pg_notify($1, $2)', [ackChannel, acknowledgementOf(settle)])
            .catch((error: unknown) => options.report(error, 'bus acknowledgement failed'));
    };

    const hear = (client: pg.Client, notification: pg.Notification): void => {
        const text = notification.payload ?? '';
        if (notification.channel === ackChannel) {
            settlements.heard(text);
            return;
        }
        if (notification.channel !== channel) return;
        let envelope: Envelope | ProbeEnvelope;
        try {
            envelope = JSON.parse(text) as Envelope | ProbeEnvelope;
        } catch (error) {
            options.report(error, 'bus message is not JSON');
            return;
        }
        if (envelope !== null && typeof envelope === 'object' && 'probe' in envelope) {
            // another replica's probe is nothing to us; our own counts only on the listener it proves
            if (envelope.origin === origin && client === listening && typeof envelope.probe === 'string') probe.heard(envelope.probe);
            return;
        }
        if (envelope?.origin === origin || typeof envelope?.message?.kind !== 'string') return;
        listeners.deliver(envelope.message);
        // delivered (listeners run synchronously): the writer may answer its request now
        if (typeof envelope.settle === 'string') acknowledge(envelope.settle);
    };

    /** A connected client that LISTENs to both channels; named once it hears (`prove`). */
    const listen = async (): Promise<{ client: pg.Client; pid: number }> => {
        const client = new pg.Client({ ...options.connection, keepAlive: true });
        client.on('error', (error) => lose(client, error));
        client.on('end', () => lose(client, new Error('the bus\'s listening connection ended')));
        client.on('notification', (notification) => hear(client, notification));
        try {
            await client.connect();
            const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
            await client.query(`LISTEN ${client.escapeIdentifier(channel)}; LISTEN ${client.escapeIdentifier(ackChannel)}`);
            await options.afterListen?.(client);
            return { client, pid: rows[0]!.pid };
        } catch (error) {
            client.end().catch(() => undefined);
            throw error;
        }
    };

    /** The listening connection failed or ended: not live until a new one hears its probe (and resynced). */
    function lose(client: pg.Client, error: Error): void {
        if (client !== listening || closed) return;
        drop(client, error, 'bus listening connection lost; caches serve nothing until it listens again');
    }

    /** Not live from here; the loss told once per transition; a new listener in place of this one. */
    function drop(client: pg.Client, error: Error, context: string): void {
        listening = undefined;
        hearing = false;
        clearTimeout(probeTimer);
        // never awaited: on a silent network the end may wait for TCP to notice
        client.end().catch(() => undefined);
        if (!down) {
            down = true;
            options.report(error, context);
        }
        scheduleReconnect();
    }

    /**
     * One probe of `client`, the listener: heard, it is named (counted by the publishers from now
     * on) and the bus is live — after a resync of every listener, synchronously, so no request
     * caches in between — and probed again later; not heard, it is dropped.
     */
    async function prove(client: pg.Client): Promise<void> {
        const outcome = await probe.run();
        if (closed || client !== listening) return;
        if (!outcome.heard) return drop(client, outcome.error, outcome.sent ? DEAF_CONTEXT : UNSENT_CONTEXT);
        if (!hearing) {
            try {
                // named after it heard, never before (NOTIFY_COUNTING)
                await client.query('select set_config($1, $2, false)', ['application_name', `${namePrefix}${process.pid}`]);
            } catch (error) {
                return lose(client, error as Error);
            }
            if (closed || client !== listening) return;
            hearing = true;
            attempts = 0;
            if (down) {
                down = false;
                options.recovered?.('bus hears its own probe again; caches serve again');
            }
            // whatever was NOTIFYed while it did not hear is gone: every cache empties before caching resumes
            listeners.deliver({ kind: 'resync' });
        }
        probeTimer = setTimeout(() => void prove(client), probeIntervalMs);
        // the listening connection keeps the process up while the bus is open, not this timer
        probeTimer.unref();
    }

    function scheduleReconnect(): void {
        const wait = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** attempts);
        attempts++;
        reconnectTimer = setTimeout(() => void reconnect(), wait);
    }

    async function reconnect(): Promise<void> {
        reconnectTimer = undefined;
        if (closed) return;
        let opened: Awaited<ReturnType<typeof listen>>;
        try {
            opened = await listen();
        } catch (error) {
            if (closed) return;
            options.report(error, 'bus reconnection failed; retrying');
            scheduleReconnect();
            return;
        }
        if (closed) {
            opened.client.end().catch(() => undefined);
            return;
        }
        listening = opened.client;
        listenerPid = opened.pid;
        // live, and resynced, once it hears its probe
        await prove(opened.client);
    }

    /** NOTIFYs `envelope` and answers how many other processes listen; one too large for NOTIFY goes as a resync. */
    const notify = async (envelope: Envelope): Promise<number> => {
        let payload = JSON.stringify(envelope);
        const bytes = Buffer.byteLength(payload);
        if (bytes >= PAYLOAD_LIMIT_BYTES) {
            // the other replicas cannot be told what changed, only that something did: they empty every cache
            const what = envelope.message.kind === 'entity' ? envelope.message.event.name : envelope.message.kind;
            options.report(new Error(`the ${what} message is ${bytes} bytes, NOTIFY takes fewer than ${PAYLOAD_LIMIT_BYTES}`), 'bus message too large; the other replicas resync instead');
            payload = JSON.stringify({ ...envelope, message: { kind: 'resync' } } satisfies Envelope);
        }
        const { rows } = await publisher.query<{ receivers: number }>(NOTIFY_COUNTING, [channel, payload, namePrefix, listenerPid]);
        return rows[0]!.receivers;
    };

    let first: pg.Client;
    try {
        const opened = await listen();
        first = opened.client;
        listening = opened.client;
        listenerPid = opened.pid;
        // the publishing pool's first connection now: a write does not wait for it, and a refusal stops the boot here
        await publisher.query('select 1');
    } catch (error) {
        const client = listening;
        listening = undefined;
        closed = true;
        await Promise.all([client?.end().catch(() => undefined), publisher.end().catch(() => undefined)]);
        throw new Error(`the bus cannot LISTEN on the PostgreSQL database (${(error as Error).message})`);
    }
    // the boot waits for the first probe (at most probeTimeoutMs): a bus that hears starts live;
    // one that does not starts as not live, reported, and keeps trying
    await prove(first);

    return {
        shared: true,
        // the listening connection heard its latest probe: every message NOTIFYed from here on reaches this process
        get live() {
            return listening !== undefined && hearing;
        },
        publish(message) {
            listeners.deliver(message);
            notify({ origin, message })
                .catch((error: unknown) => options.report(error, 'bus publish failed; the other replicas keep their caches until their TTL'));
        },
        async publishSettled(message) {
            listeners.deliver(message);
            // bounded even when the NOTIFY itself does not answer: the write answers anyway, reported
            const settlement = settlements.open();
            notify({ origin, message, settle: settlement.id }).then((receivers) => settlement.expect(receivers), (error: unknown) => {
                options.report(error, 'bus publish failed; the other replicas keep their caches until their TTL');
                settlement.end();
            });
            try {
                await settlement.settled;
            } finally {
                settlement.end();
            }
        },
        subscribe: (listener) => listeners.add(listener),
        async close() {
            if (closed) return;
            closed = true;
            clearTimeout(reconnectTimer);
            clearTimeout(probeTimer);
            probe.cancel();
            listeners.clear();
            settlements.endAll();
            const client = listening;
            listening = undefined;
            await Promise.all([client?.end().catch(() => undefined), publisher.end().catch(() => undefined)]);
        },
    };
}
