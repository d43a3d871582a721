import { randomUUID } from 'node:crypto';
import { acknowledgementOf, createSettlements } from './settlements.js';
import { Redis } from 'ioredis';
import { createListeners, type Bus, type BusMessage } from './bus.js';

/** What crosses Redis: the message and the replica that sent it (which delivered it locally already). */
interface Envelope {
    origin: string;
    message: BusMessage;
    /** set by publishSettled: every receiver answers on the acknowledgement channel once delivered */
    settle?: string;
}

export interface RedisBusOptions {
    url: string;
    /** the deployment's channel: replicas sharing a database share it, other deployments on the Redis do not */
    channel: string;
    /** a listener's error, a malformed message, a failed publish: logged, never thrown at a request */
    report: (error: unknown, context: string) => void;
}

/**
 * The bus across replicas: Redis pub/sub on one channel per deployment. A publish is delivered to
 * this process's listeners at once (a local write never waits for Redis, nor is lost while Redis
 * is away) and sent to the others, which skip their own messages by origin. Pub/sub keeps nothing
 * for a disconnected subscriber, so after a reconnection the listeners are told to resync — the
 * catalog is rebuilt rather than trusted.
 */
export async function createRedisBus(options: RedisBusOptions): Promise<Bus> {
    const origin = randomUUID();
    const ackChannel = `${options.channel}:ack`;
    const listeners = createListeners((error) => options.report(error, 'bus listener failed'));
    const connect = { lazyConnect: true, maxRetriesPerRequest: 1 } as const;
    const publisher = new Redis(options.url, { ...connect, enableOfflineQueue: false });
    // a subscriber connection re-subscribes by itself after a reconnection (ioredis autoResubscribe)
    // named after its channel: an operator (or a test) can tell the bus's connections in CLIENT LIST
    const subscriber = new Redis(options.url, { ...connect, connectionName: `sub:${options.channel}` });
    publisher.on('error', () => undefined);
    subscriber.on('error', () => undefined);
    try {
        await Promise.all([publisher.connect(), subscriber.connect()]);
        await subscriber.subscribe(options.channel, ackChannel);
    } catch (error) {
        publisher.disconnect();
        subscriber.disconnect();
        throw new Error(`REDIS_URL: the bus cannot be reached (${(error as Error).message})`);
    }
    /**
     * The settled publishes waiting for acknowledgements. One replica that does not answer in time
     * is either cut off from Redis (it then serves nothing from its caches and resyncs when back) or
     * stalled; the write answers anyway, reported, and the caches' TTL bounds what remains.
     */
    const settlements = createSettlements(options.report);
    let lost = false;
    subscriber.on('close', () => {
        lost = true;
    });
    subscriber.on('ready', () => {
        if (!lost) return;
        lost = false;
        listeners.deliver({ kind: 'resync' });
    });
    subscriber.on('message', (channel: string, text: string) => {
        if (channel === ackChannel) {
            settlements.heard(text);
            return;
        }
        if (channel !== options.channel) return;
        let envelope: Envelope;
        try {
            envelope = JSON.parse(text) as Envelope;
        } catch (error) {
            options.report(error, 'bus message is not JSON');
            return;
        }
        if (envelope.origin === origin || typeof envelope.message?.kind !== 'string') return;
        listeners.deliver(envelope.message);
        // delivered (listeners run synchronously): the writer may answer its request now
        if (typeof envelope.settle === 'string') {
            publisher.publish(ackChannel, acknowledgementOf(envelope.settle))
                .catch((error: unknown) => options.report(error, 'bus acknowledgement failed'));
        }
    });
    return {
        shared: true,
        // the subscription is up: every message published from here on reaches this process
        get live() {
            return !lost && subscriber.status === 'ready';
        },
        publish(message) {
            listeners.deliver(message);
            publisher.publish(options.channel, JSON.stringify({ origin, message } satisfies Envelope))
                .catch((error: unknown) => options.report(error, 'bus publish failed; other replicas resync when it answers'));
        },
        async publishSettled(message) {
            listeners.deliver(message);
            const settlement = settlements.open();
            try {
                // PUBLISH answers how many subscriptions received the message, this process's own included
                const receivers = await publisher.publish(options.channel, JSON.stringify({ origin, message, settle: settlement.id } satisfies Envelope));
                // every subscription but this process's own (counted unless it is the one that is lost)
                settlement.expect(receivers - (lost ? 0 : 1));
                await settlement.settled;
            } catch (error) {
                options.report(error, 'bus publish failed; other replicas resync when it answers');
            } finally {
                settlement.end();
            }
        },
        subscribe: (listener) => listeners.add(listener),
        async close() {
            listeners.clear();
            await Promise.all([publisher, subscriber].map((redis) => redis.quit().catch(() => redis.disconnect())));
        },
    };
}
