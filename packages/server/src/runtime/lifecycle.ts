/**
 * Whether this replica is leaving (a SIGTERM arrived, runtime/graceful-shutdown.ts). A draining
 * replica still answers every request, but its readiness probe answers 503 so the load balancer
 * stops sending it new ones, and every answer closes its connection so no keep-alive connection is
 * left for the balancer to reuse after the listener closes (RFC 9112 §9.6: `Connection: close`).
 */
export interface Lifecycle {
    readonly draining: boolean;
    beginDrain(): void;
}

export function createLifecycle(): Lifecycle {
    let draining = false;
    return {
        get draining() {
            return draining;
        },
        beginDrain() {
            draining = true;
        },
    };
}
