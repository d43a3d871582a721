import type { PageForm, PageRealm } from './contract.js';
import { escapeHtml as e, hiddenFields, page } from './html.js';
import { ACCOUNT_STRINGS as S, STRINGS } from './strings.js';

/*
 * The pages the activation and reset mails link to. Like the sign-in pages:
 * pure functions from plain data to escaped HTML, forms posting to the server with a CSRF field.
 */

const realmName = (realm: PageRealm): string => realm.displayName ?? realm.name;

export interface AccountFormView {
    realm: PageRealm;
    form: PageForm;
    /** a message above the form (the passwords differ, the link is spent) */
    error?: string;
}

const errorLine = (error: string | undefined): string => (error ? `<p class="error" role="alert">${e(error)}</p>\n` : '');

/** A page of one form: a heading, an optional paragraph, the error, the form's inputs and its button. */
function formPage(view: AccountFormView, text: { title: string; heading: string; intro?: string; inputs?: string; button: string }): string {
    const intro = text.intro ? `<p>${e(text.intro)}</p>\n` : '';
    return page({
        title: text.title,
        realm: realmName(view.realm),
        body: `<h1>${e(text.heading)}</h1>
${intro}${errorLine(view.error)}<form method="post" action="${e(view.form.action)}">
${hiddenFields(view.form.fields)}
${text.inputs ?? ''}<button type="submit">${e(text.button)}</button>
</form>`,
    });
}

/** The activation link's page: a button, so opening the link (a mail scanner's prefetch too) changes nothing. */
export function renderActivation(view: AccountFormView): string {
    return formPage(view, { title: S.activateTitle, heading: S.activateHeading(realmName(view.realm)), intro: S.activateIntro, button: S.activateButton });
}

/** The reset link's page: the new password, twice. */
export function renderPasswordReset(view: AccountFormView): string {
    const inputs = `<label for="password">${e(S.newPasswordLabel)}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required autofocus>
<label for="password-repeat">${e(S.repeatPasswordLabel)}</label>
<input id="password-repeat" name="passwordRepeat" type="password" autocomplete="new-password" required>
`;
    return formPage(view, { title: S.resetTitle, heading: S.resetHeading(realmName(view.realm)), inputs, button: S.resetButton });
}

/** The sign-in page's "Forgot password?" page: the username or address the link is mailed for. */
export function renderPasswordForgot(view: AccountFormView): string {
    const inputs = `<label for="username">${e(STRINGS.usernameLabel)}</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
`;
    return formPage(view, { title: S.forgotTitle, heading: S.forgotHeading(realmName(view.realm)), intro: S.forgotIntro, inputs, button: S.forgotButton });
}

const DONE: Record<'activated' | 'reset' | 'requested', readonly [string, string]> = {
    activated: [S.activatedTitle, S.activatedMessage],
    reset: [S.resetDoneTitle, S.resetDoneMessage],
    // the same page whether or not an account matched (spec Endpoints: no account enumeration)
    requested: [S.forgotSentTitle, S.forgotSentMessage],
};

/** After the activation, the reset, or the request of a reset link. */
export function renderAccountDone(view: { realm: PageRealm; kind: 'activated' | 'reset' | 'requested' }): string {
    const [title, message] = DONE[view.kind];
    return page({ title, realm: realmName(view.realm), body: `<h1>${e(title)}</h1>\n<p>${e(message)}</p>` });
}
