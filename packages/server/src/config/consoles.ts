/**
 * The consoles built from apps/console, named here so that bootstrap (the client's
 * redirect URIs), the HTTP layer (serving them) and the CLI (start roles) agree. The auth console
 * is the server's own pages (views/).
 */
export const CONSOLE_NAMES = ['admin', 'account'] as const;
export type ConsoleName = (typeof CONSOLE_NAMES)[number];

/**
 * The public client the consoles sign in as (spec beta.66 item 4: "the admin console hosted
 * standalone signs in through the client named admin-console and is narrowed like any client").
 * Bootstrap creates it in the master realm under this fixed id, so a standalone console process
 * needs no database to name it.
 */
export const ADMIN_CONSOLE_CLIENT = { id: '0a6d1c3e-5b1f-4c57-9d0e-7c1a2f3b4d5e', name: 'admin-console' } as const;

/** What decides where a standalone console is reached: CONSOLE_PUBLIC_URL, else loopback on CONSOLE_PORT. */
export interface ConsoleSettings {
    /** PORT: the API's listener */
    port?: number | undefined;
    console?: { port: number; publicUrl: string | undefined } | undefined;
}

/** The URL a standalone console (`start console admin|account`) is reached at. */
export function standaloneConsoleUrl(settings: ConsoleSettings): string | undefined {
    const console = settings.console;
    if (!console) return undefined;
    return console.publicUrl ?? `http://localhost:${console.port}`;
}

/**
 * The standalone console's URL when one is deployed: CONSOLE_PUBLIC_URL set, or a CONSOLE_PORT
 * apart from PORT (a console process beside the API). Otherwise the consoles are only those PUBLIC_URL
 * serves, and no loopback URI is registered beside an https PUBLIC_URL (RFC 8252 §8.3 allows plain
 * http only for a client on the user's own machine).
 */
export function deployedStandaloneConsoleUrl(settings: ConsoleSettings): string | undefined {
    const console = settings.console;
    if (!console) return undefined;
    if (console.publicUrl !== undefined) return console.publicUrl;
    return settings.port !== undefined && console.port !== settings.port ? standaloneConsoleUrl(settings) : undefined;
}

/** A console's URL (its redirect URI), served at PUBLIC_URL or standalone at CONSOLE_PUBLIC_URL. */
export const consoleUrl = (baseUrl: string, name: ConsoleName): string => `${baseUrl}/console/${name}/`;
