import type { PagePasskey, PasskeyPromptView } from './contract.js';
import { clientName, errorLine, escapeHtml as e, hiddenFields, page } from './html.js';
import { pageStrings } from './locale.js';

/**
 * The passkey parts of the auth pages (WebAuthn; API.md §8). The ceremony runs in
 * `/assets/passkey.js` (views/assets.ts) with @simplewebauthn/browser served beside it; without
 * JavaScript the controls stay hidden and the password forms work as before.
 */
export const PASSKEY_SCRIPTS = ['/assets/webauthn-browser.js', '/assets/passkey.js'] as const;

export type PasskeyCeremony = 'sign-in' | 'second-factor' | 'registration';

/**
 * A form the script drives: it fetches the options, runs the ceremony, fills `passkey_response` and
 * submits; `failed` is the message the script shows when the ceremony fails (in the page's language).
 */
export function passkeyForm(passkey: PagePasskey, ceremony: PasskeyCeremony, label: string, options: { failed: string; autofill?: boolean; extra?: string }): string {
    return `<form method="post" action="${e(passkey.form.action)}" class="passkey" data-passkey="${ceremony}" data-passkey-options="${e(passkey.optionsUrl)}"${options.autofill ? ' data-passkey-autofill' : ''}>
${hiddenFields(passkey.form.fields)}
<input type="hidden" name="passkey_response" value="">
<p class="error" role="alert" data-passkey-error data-message="${e(options.failed)}" hidden></p>
<button type="button" class="secondary" data-passkey-start hidden>${e(label)}</button>${options.extra ?? ''}
</form>`;
}

/** "Add a passkey to sign in faster" after a password sign-in: Add (the script) or Skip (no script needed). */
export function renderPasskeyPrompt(view: PasskeyPromptView): string {
    const S = pageStrings(view.locale);
    const skip = `\n<button type="submit" name="skip" value="1">${e(S.passkeySkipButton)}</button>`;
    return page({
        title: S.passkeyPromptTitle,
        realm: view.realm,
        locale: view.locale,
        scripts: PASSKEY_SCRIPTS,
        body: `<h1>${e(S.passkeyPromptTitle)}</h1>
<p class="subtitle">${e(S.signInFor(clientName(view.client)))}</p>
${errorLine(view.error)}<p>${e(S.passkeyPromptMessage)}</p>
${passkeyForm({ optionsUrl: view.passkey.optionsUrl, form: { action: view.form.action, fields: { ...view.form.fields, ...view.passkey.form.fields } } },
        'registration', S.passkeyAddButton, { failed: S.passkeyDidNotWork, extra: skip })}`,
    });
}
