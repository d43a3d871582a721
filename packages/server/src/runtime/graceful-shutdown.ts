/**
 * The stop of a serving process on SIGTERM or SIGINT (API.md §8 "SIGTERM drains"):
 *
 * 1. at once, the replica reports not ready (GET /health/ready 503) and closes each connection
 *    after its answer, so the load balancer's next health check takes it out of rotation;
 * 2. for `drainMs` it keeps serving — in-flight requests and new ones the balancer still sends
 *    before its check notices (an orchestrator sends SIGTERM and removes the endpoint concurrently);
 * 3. then `close` runs: the listener stops and waits for the requests in flight, the queued
 *    event-log entries are written, the bus and the pools close; the process exits 0.
 *
 * A second signal means the operator will not wait: the process exits 1 at once, whatever is
 * still queued (exactly what a kill -9 would lose).
 */
export interface ShutdownOptions {
    drainMs: number;
    beginDrain(): void;
    close(): Promise<void>;
    log(level: 'info' | 'warn' | 'error', detail: Record<string, unknown>, message: string): void;
    /** process.exit, replaced in tests */
    exit(code: number): void;
    /** where the signals arrive (process) */
    signals?: Pick<NodeJS.Process, 'on' | 'off'>;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

export function installGracefulShutdown(options: ShutdownOptions): { uninstall(): void } {
    const signals = options.signals ?? process;
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
        if (stopping) {
            options.log('warn', { signal }, 'second signal: exiting at once without draining');
            options.exit(1);
            return;
        }
        stopping = true;
        options.beginDrain();
        options.log('info', { signal, drainMs: options.drainMs }, 'shutdown: draining (not ready, still serving)');
        const drained = new Promise<void>((resolve) => setTimeout(resolve, options.drainMs));
        void drained
            .then(() => {
                options.log('info', {}, 'shutdown: closing the listener and waiting for requests in flight');
                return options.close();
            })
            .then(
                () => {
                    options.log('info', {}, 'shutdown: done');
                    options.exit(0);
                },
                (error: unknown) => {
                    options.log('error', { err: error }, 'shutdown: closing failed');
                    options.exit(1);
                },
            );
    };
    for (const signal of SIGNALS) signals.on(signal, onSignal);
    return {
        uninstall() {
            for (const signal of SIGNALS) signals.off(signal, onSignal);
        },
    };
}
