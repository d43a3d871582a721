import type {
    ConsentView, DeviceCodeView, DeviceConfirmView, DeviceDoneView, ErrorView, FormPostView, LoggedOutView, LogoutView,
    SecondFactorView, SignInView,
} from './contract.js';
import { clientName, errorLine, escapeHtml as e, hiddenFields, page, realmName } from './html.js';
import { pageStrings } from './locale.js';
import type { PageStrings } from './strings.js';
import { PASSKEY_SCRIPTS, passkeyForm } from './passkey-pages.js';

/** The script of the form_post page (no inline script: the pages' CSP is `script-src 'self'`). */
const FORM_POST_SCRIPT_PATH = '/assets/form-post.js';

const formOpen = (action: string, id?: string): string =>
    `<form method="post" action="${e(action)}"${id ? ` id="${e(id)}"` : ''}>`;

const scopeList = (S: PageStrings, scopes: readonly string[]): string => `<ul class="scopes">
${scopes.map((scope) => {
        const description = S.scopeDescriptions[scope];
        return `<li>${description ? `${e(description)} <code>${e(scope)}</code>` : `<code>${e(scope)}</code>`}</li>`;
    }).join('\n')}
</ul>`;

export function renderSignIn(view: SignInView): string {
    const S = pageStrings(view.locale);
    const realm = realmName(view.realm);
    const error = errorLine(view.error);
    // WebAuthn §5.1.4.1 conditional mediation: the browser offers passkeys in the username field's autofill
    const usernameAutocomplete = view.passkey ? 'username webauthn' : 'username';
    return page({
        title: S.signInTitle,
        realm: view.realm,
        locale: view.locale,
        ...(view.passkey ? { scripts: PASSKEY_SCRIPTS } : {}),
        body: `<h1>${e(S.signInHeading(realm))}</h1>
<p class="subtitle">${e(S.signInFor(clientName(view.client)))}</p>
${error}${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<label for="username">${e(S.usernameLabel)}</label>
<input id="username" name="username" type="text" autocomplete="${usernameAutocomplete}" autocapitalize="none" spellcheck="false" required value="${e(view.username ?? '')}"${view.username ? '' : ' autofocus'}>
<label for="password">${e(S.passwordLabel)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${view.username ? ' autofocus' : ''}>
${view.passkey ? '<input type="hidden" name="passkey_capable" value="" data-passkey-capable>\n' : ''}<button type="submit">${e(S.signInButton)}</button>
</form>${view.passkey ? `\n${passkeyForm(view.passkey, 'sign-in', S.passkeySignInButton, { autofill: true, failed: S.passkeyDidNotWork })}` : ''}${forgotLink(S, view)}${providerButtons(S, view)}`,
    });
}

/** The way to a reset link, only where the server can mail one (views/contract.ts forgotPasswordUrl). */
function forgotLink(S: PageStrings, view: SignInView): string {
    return view.forgotPasswordUrl ? `\n<p class="links"><a href="${e(view.forgotPasswordUrl)}">${e(S.forgotPasswordLink)}</a></p>` : '';
}

/** The realm's upstream providers: one form, a button per provider posting its id. */
function providerButtons(S: PageStrings, view: SignInView): string {
    if (!view.providers?.length || !view.providerForm) return '';
    return `
<p class="subtitle">${e(S.providersHeading)}</p>
${formOpen(view.providerForm.action)}
${hiddenFields(view.providerForm.fields)}
<div class="providers">
${view.providers.map((provider) => `<button type="submit" name="provider_id" value="${e(provider.id)}" class="secondary">${e(S.signInWith(provider.displayName ?? provider.name))}</button>`).join('\n')}
</div>
</form>`;
}

/** The body of a decision page (consent, device): who is signed in, the scopes asked for, Deny and the button that grants. */
function decisionBody(S: PageStrings, view: { user: string; scopes: readonly string[]; form: ConsentView['form'] }, heading: string, note: string, grant: { value: string; label: string }): string {
    return `<h1>${e(heading)}</h1>
<p class="subtitle">${e(S.consentSignedInAs(view.user))}</p>
${note}<p>${e(S.consentScopes)}</p>
${scopeList(S, view.scopes)}
${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">${e(S.denyButton)}</button>
<button type="submit" name="decision" value="${e(grant.value)}">${e(grant.label)}</button>
</div>
</form>`;
}

export function renderConsent(view: ConsentView): string {
    const S = pageStrings(view.locale);
    return page({
        title: S.consentTitle,
        realm: view.realm,
        locale: view.locale,
        body: decisionBody(S, view, S.consentHeading(clientName(view.client)), '', { value: 'allow', label: S.allowButton }),
    });
}

export function renderLogout(view: LogoutView): string {
    const S = pageStrings(view.locale);
    return page({
        title: S.logoutTitle,
        realm: view.realm,
        locale: view.locale,
        body: `<h1>${e(S.logoutQuestion(realmName(view.realm)))}</h1>
${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<button type="submit">${e(S.logoutButton)}</button>
</form>`,
    });
}

export function renderLoggedOut(view: LoggedOutView): string {
    const S = pageStrings(view.locale);
    return page({
        title: S.loggedOutTitle,
        realm: view.realm,
        locale: view.locale,
        body: `<h1>${e(S.loggedOutTitle)}</h1>\n<p>${e(S.loggedOutMessage)}</p>`,
    });
}

export function renderError(view: ErrorView): string {
    const S = pageStrings(view.locale);
    return page({
        title: S.errorTitle,
        realm: view.realm,
        locale: view.locale,
        body: `<h1>${e(S.errorTitle)}</h1>\n<p class="error" role="alert">${e(view.message)}</p>\n<p class="code"><code>${e(view.error)}</code></p>`,
    });
}

/**
 * The form_post response (OAuth 2.0 Form Post Response Mode §2): the code and state posted to the
 * redirect URI. The external script submits it at once; without JavaScript the user presses Continue.
 */
export function renderFormPost(view: FormPostView): string {
    const S = pageStrings(view.locale);
    return page({
        title: S.formPostTitle,
        realm: view.realm,
        locale: view.locale,
        script: FORM_POST_SCRIPT_PATH,
        body: `<p>${e(S.formPostMessage)}</p>
${formOpen(view.form.action, 'form-post')}
${hiddenFields(view.form.fields)}
<button type="submit">${e(S.continueButton)}</button>
</form>`,
    });
}

/**
 * The second sign-in page: the authenticator app's code, or — behind a disclosure that needs no
 * script — a recovery code. Neither field is `required`: the server takes the recovery code when
 * one is given.
 */
export function renderSecondFactor(view: SecondFactorView): string {
    const S = pageStrings(view.locale);
    // a passkey beside the code; the user chooses
    const passkey = view.passkey ? `${passkeyForm(view.passkey, 'second-factor', S.passkeySecondFactorButton, { failed: S.passkeyDidNotWork })}\n` : '';
    return page({
        title: S.secondFactorTitle,
        realm: view.realm,
        locale: view.locale,
        ...(view.passkey ? { scripts: PASSKEY_SCRIPTS } : {}),
        body: `<h1>${e(S.secondFactorTitle)}</h1>
<p class="subtitle">${e(S.signInFor(clientName(view.client)))}</p>
${errorLine(view.error)}${passkey}${view.totp === false ? '' : codeForm(S, view)}`,
    });
}

/** The code form of the second-factor page: an authenticator app's code, or a recovery code. */
function codeForm(S: PageStrings, view: SecondFactorView): string {
    return `${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<label for="otp">${e(S.otpLabel)}</label>
<p>${e(S.secondFactorPrompt)}</p>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" autofocus>
<details>
<summary>${e(S.recoveryToggle)}</summary>
<label for="recovery_code">${e(S.recoveryLabel)}</label>
<input id="recovery_code" name="recovery_code" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="64">
</details>
<button type="submit">${e(S.verifyButton)}</button>
</form>`;
}

/** `GET /device` (RFC 8628 §3.3): the user code the device shows, typed here. */
export function renderDeviceCode(view: DeviceCodeView): string {
    const S = pageStrings(view.locale);
    return page({
        title: S.deviceTitle,
        realm: view.realm,
        locale: view.locale,
        body: `<h1>${e(S.deviceHeading)}</h1>
${errorLine(view.error)}${formOpen(view.form.action)}
${hiddenFields(view.form.fields)}
<label for="user_code">${e(S.codeLabel)}</label>
<input id="user_code" name="user_code" type="text" class="user-code" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="64" required autofocus value="${e(view.userCode ?? '')}">
<button type="submit">${e(S.continueButton)}</button>
</form>`,
    });
}

/** The device request the code names: the client and the scopes, approve or deny (RFC 8628 §3.3). */
export function renderDeviceConfirm(view: DeviceConfirmView): string {
    const S = pageStrings(view.locale);
    return page({
        title: S.deviceTitle,
        realm: view.realm,
        locale: view.locale,
        body: decisionBody(S, view, S.deviceConfirmHeading(clientName(view.client)), `<p>${e(S.deviceConfirmCode(view.userCode))}</p>\n`, {
            value: 'approve', label: S.approveButton,
        }),
    });
}

export function renderDeviceDone(view: DeviceDoneView): string {
    const S = pageStrings(view.locale);
    const client = clientName(view.client);
    const [title, message] = view.approved ?
        [S.deviceApprovedTitle, S.deviceApprovedMessage(client)] :
        [S.deviceDeniedTitle, S.deviceDeniedMessage(client)];
    return page({ title, realm: view.realm, locale: view.locale, body: `<h1>${e(title)}</h1>\n<p>${e(message)}</p>` });
}
