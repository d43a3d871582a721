import { createApp, h, type Component } from 'vue';
import { createRouter, createWebHistory, type RouteLocationRaw, type RouteRecordRaw } from 'vue-router';
import { API, createApi } from './api.js';
import { loadConsoleConfig, type ConsoleConfig, type ConsoleName } from './config.js';
import { createGate, GATE } from './gate.js';
import { t, useLocaleOf, type MessageKey } from './i18n/i18n.js';
import { createNames, NAMES } from './names.js';
import { createRealtime, REALTIME } from './realtime.js';
import { chosenRealm, DEFAULT_REALM, discoverRealm, forgetRealm, REALM, rememberRealm, type RealmEndpoints } from './realm.js';
import { completeSignIn, currentSignIn, signOut, startSignIn } from './session.js';
import ConsoleShell from './components/ConsoleShell.vue';
import './styles/base.css';

/** A menu entry; hidden unless POST /authorization/check allows `permission` in some realm. */
export interface NavItem {
    label: MessageKey;
    to: RouteLocationRaw;
    permission?: string;
}

export interface ConsoleDefinition {
    name: ConsoleName;
    title: MessageKey;
    routes: RouteRecordRaw[];
    nav: NavItem[];
    /** what the side menu shows below the console's menu (the admin console's realm switcher and sections) */
    aside?: Component;
}

function fail(message: string): void {
    const root = document.getElementById('app')!;
    root.replaceChildren();
    const box = document.createElement('main');
    box.className = 'boot-error';
    const heading = document.createElement('h1');
    heading.textContent = t('boot.cannotStart');
    const text = document.createElement('p');
    text.setAttribute('role', 'alert');
    text.textContent = message;
    const again = document.createElement('a');
    again.href = location.pathname;
    again.textContent = t('boot.tryAgain');
    box.append(heading, text, again);
    root.append(box);
}

/**
 * The signed-out screen of a tab that has not chosen a realm (realm.ts): one field, the realm to
 * sign in through (master by default), then that realm's sign-in page. `problem`: why the last
 * choice did not work (no such realm), shown as an alert beside the field.
 */
function askRealm(title: string, value: string, problem: string | null): Promise<string> {
    const root = document.getElementById('app')!;
    root.replaceChildren();
    const box = document.createElement('main');
    box.className = 'boot';
    const heading = document.createElement('h1');
    heading.textContent = t('boot.signInTo', { title });
    const form = document.createElement('form');
    form.noValidate = true;
    const field = document.createElement('div');
    field.className = 'field';
    const label = document.createElement('label');
    label.htmlFor = 'sign-in-realm';
    label.textContent = t('boot.realm');
    const input = document.createElement('input');
    Object.assign(input, { id: 'sign-in-realm', name: 'realm', value, required: true, autocomplete: 'organization', spellcheck: false });
    const hint = document.createElement('p');
    hint.id = 'sign-in-realm-hint';
    hint.textContent = t('boot.realmHint');
    input.setAttribute('aria-describedby', hint.id);
    field.append(label, input, hint);
    if (problem) {
        const error = document.createElement('p');
        error.id = 'sign-in-realm-error';
        error.className = 'field-error';
        error.setAttribute('role', 'alert');
        error.textContent = problem;
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-describedby', `${hint.id} ${error.id}`);
        field.append(error);
    }
    const submit = document.createElement('button');
    submit.type = 'submit';
    submit.className = 'button primary';
    submit.textContent = t('boot.continue');
    form.append(field, submit);
    box.append(heading, form);
    root.append(box);
    input.focus();
    return new Promise((resolve) => {
        form.addEventListener('submit', (event) => {
            event.preventDefault();
            const realm = input.value.trim();
            if (realm) resolve(realm);
        });
    });
}

/** The tab's realm and its endpoints: `?realm=`, the tab's earlier choice, or asked for; asked again when it does not exist. */
async function realmOfTab(config: ConsoleConfig, title: string): Promise<RealmEndpoints> {
    let name = chosenRealm();
    let problem: string | null = null;
    for (;;) {
        if (name) {
            try {
                const realm = await discoverRealm(config, name);
                rememberRealm(name);
                return realm;
            } catch (error) {
                forgetRealm();
                problem = error instanceof Error ? error.message : String(error);
            }
        }
        name = await askRealm(title, name ?? DEFAULT_REALM, problem);
    }
}

/**
 * Starts a console: its configuration, the realm of the tab (realm.ts), the sign-in (session.ts), then the API client, the gate,
 * the realtime socket and the router (history mode under /console/<name>/), all provided to every
 * page. A page file needs nothing of this: `useApi()`, `useGate()`, `useRealtime()`.
 */
export async function bootConsole(definition: ConsoleDefinition): Promise<void> {
    let config: ConsoleConfig;
    useLocaleOf(navigator.languages?.length ? navigator.languages : [navigator.language]);
    const title = t(definition.title);
    document.title = title;
    try {
        config = await loadConsoleConfig(definition.name);
        await completeSignIn(config);
        const realm = await realmOfTab(config, title);
        const signedIn = await currentSignIn(config, realm);
        if (!signedIn) {
            await startSignIn(config, realm);
            return;
        }
        const api = createApi(config, signedIn.auth);
        const router = createRouter({ history: createWebHistory(`${import.meta.env.BASE_URL}${definition.name}/`), routes: definition.routes });
        // the page's own heading is focused after a navigation, so a screen reader hears where it is
        router.afterEach(() => { setTimeout(() => document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: false }), 0); });
        const app = createApp({ render: () => h(ConsoleShell, { title, nav: definition.nav, signOut: () => signOut(config, realm), aside: definition.aside }) });
        const gate = createGate(api);
        app.provide(API, api);
        app.provide(REALM, realm);
        app.provide(GATE, gate);
        app.provide(NAMES, createNames(api, gate));
        app.provide(REALTIME, createRealtime(config.apiUrl, signedIn.auth));
        app.use(router);
        await router.isReady().catch(() => undefined);
        document.getElementById('app')!.replaceChildren();
        app.mount('#app');
    } catch (error) {
        fail(error instanceof Error ? error.message : String(error));
    }
}
