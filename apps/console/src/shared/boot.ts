import { createApp, h } from 'vue';
import { createRouter, createWebHistory, type RouteLocationRaw, type RouteRecordRaw } from 'vue-router';
import { API, createApi } from './api.js';
import { loadConsoleConfig, type ConsoleConfig, type ConsoleName } from './config.js';
import { createGate, GATE } from './gate.js';
import { createRealtime, REALTIME } from './realtime.js';
import { completeSignIn, currentSignIn, signOut, startSignIn } from './session.js';
import ConsoleShell from './components/ConsoleShell.vue';
import './styles/base.css';

/** A menu entry; hidden unless POST /authorization/check allows `permission` in some realm. */
export interface NavItem {
    label: string;
    to: RouteLocationRaw;
    permission?: string;
}

export interface ConsoleDefinition {
    name: ConsoleName;
    title: string;
    routes: RouteRecordRaw[];
    nav: NavItem[];
}

function fail(message: string): void {
    const root = document.getElementById('app')!;
    root.replaceChildren();
    const box = document.createElement('main');
    box.className = 'boot-error';
    const heading = document.createElement('h1');
    heading.textContent = 'The console cannot start';
    const text = document.createElement('p');
    text.setAttribute('role', 'alert');
    text.textContent = message;
    const again = document.createElement('a');
    again.href = location.pathname;
    again.textContent = 'Try again';
    box.append(heading, text, again);
    root.append(box);
}

/**
 * Starts a console: its configuration, the sign-in (session.ts), then the API client, the gate,
 * the realtime socket and the router (history mode under /console/<name>/), all provided to every
 * page. A page file needs nothing of this: `useApi()`, `useGate()`, `useRealtime()`.
 */
export async function bootConsole(definition: ConsoleDefinition): Promise<void> {
    let config: ConsoleConfig;
    try {
        config = await loadConsoleConfig(definition.name);
        await completeSignIn(config);
        const signedIn = await currentSignIn(config);
        if (!signedIn) {
            await startSignIn(config);
            return;
        }
        const api = createApi(config, signedIn.auth);
        const router = createRouter({ history: createWebHistory(`${import.meta.env.BASE_URL}${definition.name}/`), routes: definition.routes });
        // the page's own heading is focused after a navigation, so a screen reader hears where it is
        router.afterEach(() => { setTimeout(() => document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: false }), 0); });
        const app = createApp({ render: () => h(ConsoleShell, { title: definition.title, nav: definition.nav, signOut: () => signOut(config) }) });
        app.provide(API, api);
        app.provide(GATE, createGate(api));
        app.provide(REALTIME, createRealtime(config.apiUrl, signedIn.auth));
        app.use(router);
        await router.isReady().catch(() => undefined);
        document.getElementById('app')!.replaceChildren();
        app.mount('#app');
    } catch (error) {
        fail(error instanceof Error ? error.message : String(error));
    }
}
