/** The slice of autocannon's programmatic API the harness uses (the package ships no types). */
declare module 'autocannon' {
    interface AutocannonRequest {
        method?: string;
        path?: string;
        headers?: Record<string, string>;
        body?: string;
        setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined;
        onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }

    interface AutocannonOptions extends AutocannonRequest {
        url: string;
        connections?: number;
        duration?: number;
        pipelining?: number;
        timeout?: number;
        requests?: AutocannonRequest[];
    }

    interface Histogram {
        average: number;
        mean: number;
        total: number;
        p50: number;
        p99: number;
    }

    interface AutocannonResult {
        requests: Histogram;
        latency: Histogram;
        errors: number;
        timeouts: number;
        non2xx: number;
        duration: number;
        statusCodeStats?: Record<string, { count: number }>;
    }

    function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
    export default autocannon;
    export type { AutocannonOptions, AutocannonRequest, AutocannonResult };
}
