import type {
    ConsentView, DeviceCodeView, DeviceConfirmView, DeviceDoneView, ErrorView, FormPostView, LoggedOutView, LogoutView, PageClient, PageRealm,
    SecondFactorView, SignInView,
} from './contract.js';
import { escapeHtml as e, hiddenFields, page } from './html.js';
import { STRINGS } from './strings.js';
import { PASSKEY_SCRIPTS, passkeyForm } from './passkey-pages.js';

/** The script of the form_post page (no inline script: the pages' CSP is `script-src 'self'`). */
const FORM_POST_SCRIPT_PATH = '/assets/form-post.js';

const realmName = (realm: PageRealm | null): string => (realm ? realm.displayName ?? realm.name : 'Realmgate');
const clientName = (client: PageClient): string => client.displayName ?? client.name;

const formOpen = (action: string, id?: string): string =>
    `<form method="post" action="${e(action)}"${id ? ` id="${e(id)}"` : ''}>`;

const errorLine = (error: string | undefined): string => (error ? `<p class="error" role="alert">${e(error)}</p>\n` : '');

const scopeList = (scopes: readonly string[]): string => `<ul class="scopes">
${scopes.map((scope) => {
        const description = STRINGS.scopeDescriptions[scope];
        return `<li>${description ? `${e(description)} <code>${e(scope)}</code>` : `<code>${e(scope)}</code>`}</li>`;
    }).join('\n')}
</ul>`;

export function renderSignIn(view: SignInView): string {
    const realm = realmName(view.realm);
    const error = errorLine(view.error);
    // WebAuthn §5.1.4.1 conditional mediation: the browser offers passkeys in the username field's autofill
    const usernameAutocomplete = view.passkey ? 'username webauthn' : 'username';
    return page({
        title: STRINGS.signInTitle,
        realm,
        ...(view.passkey ? { scripts: PASSKEY_SCRIPTS } : {}),
        body: `<h1>${e(STRINGS.signInHeading(realm))}</h1>
<p class="subtitle">${e(STRINGS.signInFor(clientName(view.client)))}</p>
${error}${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<label for="username">${e(STRINGS.usernameLabel)}</label>
<input id="username" name="username" type="text" autocomplete="${usernameAutocomplete}" autocapitalize="none" spellcheck="false" required value="${e(view.username ?? '')}"${view.username ? '' : ' autofocus'}>
<label for="password">${e(STRINGS.passwordLabel)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${view.username ? ' autofocus' : ''}>
${view.passkey ? '<input type="hidden" name="passkey_capable" value="" data-passkey-capable>\n' : ''}<button type="submit">${e(STRINGS.signInButton)}</button>
</form>${view.passkey ? `\n${passkeyForm(view.passkey, 'sign-in', STRINGS.passkeySignInButton, { autofill: true })}` : ''}${forgotLink(view)}${providerButtons(view)}`,
    });
}

/** The way to a reset link, only where the server can mail one (views/contract.ts forgotPasswordUrl). */
function forgotLink(view: SignInView): string {
    return view.forgotPasswordUrl ? `\n<p class="links"><a href="${e(view.forgotPasswordUrl)}">${e(STRINGS.forgotPasswordLink)}</a></p>` : '';
}

/** The realm's upstream providers (auth-page contract version 5): one form, a button per provider posting its id. */
function providerButtons(view: SignInView): string {
    if (!view.providers?.length || !view.providerForm) return '';
    return `
<p class="subtitle">${e(STRINGS.providersHeading)}</p>
${formOpen(view.providerForm.action)}
${hiddenFields(view.providerForm.fields)}
<div class="providers">
${view.providers.map((provider) => `<button type="submit" name="provider_id" value="${e(provider.id)}" class="secondary">${e(STRINGS.signInWith(provider.displayName ?? provider.name))}</button>`).join('\n')}
</div>
</form>`;
}

/** The body of a decision page (consent, device): who is signed in, the scopes asked for, Deny and the button that grants. */
function decisionBody(view: { user: string; scopes: readonly string[]; form: ConsentView['form'] }, heading: string, note: string, grant: { value: string; label: string }): string {
    return `<h1>${e(heading)}</h1>
<p class="subtitle">${e(STRINGS.consentSignedInAs(view.user))}</p>
${note}<p>${e(STRINGS.consentScopes)}</p>
${scopeList(view.scopes)}
${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">${e(STRINGS.denyButton)}</button>
<button type="submit" name="decision" value="${e(grant.value)}">${e(grant.label)}</button>
</div>
</form>`;
}

export function renderConsent(view: ConsentView): string {
    return page({
        title: STRINGS.consentTitle,
        realm: realmName(view.realm),
        body: decisionBody(view, STRINGS.consentHeading(clientName(view.client)), '', { value: 'allow', label: STRINGS.allowButton }),
    });
}

export function renderLogout(view: LogoutView): string {
    const realm = realmName(view.realm);
    return page({
        title: STRINGS.logoutTitle,
        realm,
        body: `<h1>${e(STRINGS.logoutQuestion(realm))}</h1>
${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<button type="submit">${e(STRINGS.logoutButton)}</button>
</form>`,
    });
}

export function renderLoggedOut(view: LoggedOutView): string {
    return page({
        title: STRINGS.loggedOutTitle,
        realm: realmName(view.realm),
        body: `<h1>${e(STRINGS.loggedOutTitle)}</h1>\n<p>${e(STRINGS.loggedOutMessage)}</p>`,
    });
}

export function renderError(view: ErrorView): string {
    return page({
        title: STRINGS.errorTitle,
        realm: realmName(view.realm),
        body: `<h1>${e(STRINGS.errorTitle)}</h1>\n<p class="error" role="alert">${e(view.message)}</p>\n<p class="code"><code>${e(view.error)}</code></p>`,
    });
}

/**
 * The form_post response (OAuth 2.0 Form Post Response Mode §2): the code and state posted to the
 * redirect URI. The external script submits it at once; without JavaScript the user presses Continue.
 */
export function renderFormPost(view: FormPostView): string {
    return page({
        title: STRINGS.formPostTitle,
        realm: realmName(view.realm),
        script: FORM_POST_SCRIPT_PATH,
        body: `<p>${e(STRINGS.formPostMessage)}</p>
${formOpen(view.form.action, 'form-post')}
${hiddenFields(view.form.fields)}
<button type="submit">${e(STRINGS.continueButton)}</button>
</form>`,
    });
}

/**
 * The second sign-in page (multi-factor sign-in with TOTP; RFC 6238): the authenticator app's code, or — behind a
 * disclosure that needs no script — a recovery code. Neither field is `required`: the server
 * takes the recovery code when one is given.
 */
export function renderSecondFactor(view: SecondFactorView): string {
    const realm = realmName(view.realm);
    // a passkey beside the code; the user chooses
    const passkey = view.passkey ? `${passkeyForm(view.passkey, 'second-factor', STRINGS.passkeySecondFactorButton)}\n` : '';
    return page({
        title: STRINGS.secondFactorTitle,
        realm,
        ...(view.passkey ? { scripts: PASSKEY_SCRIPTS } : {}),
        body: `<h1>${e(STRINGS.secondFactorTitle)}</h1>
<p class="subtitle">${e(STRINGS.signInFor(clientName(view.client)))}</p>
${errorLine(view.error)}${passkey}${view.totp === false ? '' : codeForm(view)}`,
    });
}

/** The code form of the second-factor page: an authenticator app's code, or a recovery code. */
function codeForm(view: SecondFactorView): string {
    return `${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<label for="otp">${e(STRINGS.otpLabel)}</label>
<p>${e(STRINGS.secondFactorPrompt)}</p>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" autofocus>
<details>
<summary>${e(STRINGS.recoveryToggle)}</summary>
<label for="recovery_code">${e(STRINGS.recoveryLabel)}</label>
<input id="recovery_code" name="recovery_code" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="64">
</details>
<button type="submit">${e(STRINGS.verifyButton)}</button>
</form>`;
}

/** `GET /device` (RFC 8628 §3.3): the user code the device shows, typed here. */
export function renderDeviceCode(view: DeviceCodeView): string {
    return page({
        title: STRINGS.deviceTitle,
        realm: realmName(view.realm),
        body: `<h1>${e(STRINGS.deviceHeading)}</h1>
${errorLine(view.error)}${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<label for="user_code">${e(STRINGS.codeLabel)}</label>
<input id="user_code" name="user_code" type="text" class="user-code" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="64" required autofocus value="${e(view.userCode ?? '')}">
<button type="submit">${e(STRINGS.continueButton)}</button>
</form>`,
    });
}

/** The device request the code names: the client and the scopes, approve or deny (RFC 8628 §3.3). */
export function renderDeviceConfirm(view: DeviceConfirmView): string {
    return page({
        title: STRINGS.deviceTitle,
        realm: realmName(view.realm),
        body: decisionBody(view, STRINGS.deviceConfirmHeading(clientName(view.client)), `<p>${e(STRINGS.deviceConfirmCode(view.userCode))}</p>\n`, {
            value: 'approve', label: STRINGS.approveButton,
        }),
    });
}

export function renderDeviceDone(view: DeviceDoneView): string {
    const client = clientName(view.client);
    const [title, message] = view.approved ?
        [STRINGS.deviceApprovedTitle, STRINGS.deviceApprovedMessage(client)] :
        [STRINGS.deviceDeniedTitle, STRINGS.deviceDeniedMessage(client)];
    return page({ title, realm: realmName(view.realm), body: `<h1>${e(title)}</h1>\n<p>${e(message)}</p>` });
}
