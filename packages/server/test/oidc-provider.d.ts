/*
 * oidc-provider ships no type declarations and @types/oidc-provider is not a dependency: the
 * little the upstream test helper (test/oidc-upstream.ts) uses, typed here.
 */
declare module 'oidc-provider' {
    import type { IncomingMessage, ServerResponse } from 'node:http';

    interface Context {
        path: string;
        body: unknown;
        get(header: string): string;
        /** set once oidc-provider parsed the request */
        oidc?: { params?: Record<string, unknown>; client?: { clientId: string } };
    }
    interface Account {
        accountId: string;
        claims(): Promise<Record<string, unknown>>;
    }
    export default class Provider {
        constructor(issuer: string, configuration: Record<string, unknown> & { findAccount?: (ctx: unknown, id: string) => Promise<Account | undefined> });
        use(middleware: (ctx: Context, next: () => Promise<void>) => Promise<void>): void;
        callback(): (request: IncomingMessage, response: ServerResponse) => void;
    }
}
