/**
 * The contract of the auth console module (spec "A service that fails to start"):
 * the entry exports `CONTRACT_VERSION` and one render function per page. Each takes plain data
 * and returns a whole HTML document; escaping is the module's job. The server sets the status,
 * the headers (Content-Security-Policy, framing, caching) and the cookies.
 */

/** The version of this contract; a substituted module must declare the same (missing means 1). */
export const REQUIRED_CONTRACT_VERSION = 5;

/**
 * The realm a page belongs to: its display name when set, else its name, is shown. The branding
 * members are optional additions of contract version 5 (a module may ignore them).
 */
export interface PageRealm {
    name: string;
    displayName: string | null;
    /** the realm's logo: an https URL or a path on this server, validated on write; null or absent: none */
    logoUrl?: string | null;
    /** the realm's primary colour, `#rrggbb`; null or absent: the default look */
    primaryColor?: string | null;
    /**
     * the stylesheet carrying the primary colour (`/realms/:realm/branding.css`: the CSP allows no
     * inline style), present exactly when `primaryColor` is set; linked after the module's own
     */
    brandingStylesheetUrl?: string | null;
}

/**
 * What every page view may carry, an optional addition of contract version 5: the language the
 * page is rendered in (`en`, `de`; views/locale.ts), negotiated by the server from `ui_locales` and
 * `Accept-Language`. Absent: English.
 */
export interface PageLanguage {
    locale?: string;
}

/** The application the user signs in to. */
export interface PageClient {
    name: string;
    displayName: string | null;
}

/** A form: where it posts and the hidden fields it carries (authorization request, CSRF token). */
export interface PageForm {
    action: string;
    fields: Readonly<Record<string, string | undefined>>;
}

/** An upstream identity provider the user may sign in through (auth-page contract version 5). */
export interface PageProvider {
    id: string;
    name: string;
    displayName: string | null;
}

/** Contract version 5: the page after a login completed through an identity provider says which one. */
export interface FederatedLogin {
    providerId: string;
}

/**
 * A passkey ceremony on a page (WebAuthn; API.md §8), all optional additions of contract version 5:
 * the page's script (`/assets/passkey.js` with `/assets/webauthn-browser.js`) posts `form`'s fields
 * with `ceremony` to `optionsUrl` for the options, runs the ceremony, and posts `form` with the
 * authenticator's answer as JSON in its `passkey_response` field. A page without JavaScript shows
 * no passkey control, and every password form works as before.
 */
export interface PagePasskey {
    optionsUrl: string;
    form: PageForm;
}

export interface SignInView extends PageLanguage {
    realm: PageRealm;
    client: PageClient;
    form: PageForm;
    /**
     * the realm's enabled OpenID Connect and OAuth 2.0 providers (auth-page contract version 5); each is a submit
     * button of `providerForm` posting `provider_id` with the form's hidden fields
     */
    providers?: readonly PageProvider[];
    providerForm?: PageForm;
    /** prefilled username (`login_hint`, or what was typed before a failure) */
    username?: string;
    /** a message shown above the form (wrong credentials, throttled) */
    error?: string;
    /**
     * the page asking for a password-reset link by mail; absent when the server has no mail relay
     * (nothing could be mailed). Optional: a module that does not show it keeps this contract.
     */
    forgotPasswordUrl?: string;
    /**
     * the realm's passkeys are on: a "Sign in with a passkey" button (a discoverable credential)
     * and passkey autofill in the username field (`autocomplete="username webauthn"`)
     */
    passkey?: PagePasskey;
}

export interface ConsentView extends PageLanguage {
    realm: PageRealm;
    client: PageClient;
    /** who is signed in */
    user: string;
    /** the scopes asked for, by name */
    scopes: readonly string[];
    form: PageForm;
    /** the user just signed in through this identity provider */
    federatedLogin?: FederatedLogin;
}

export interface LogoutView extends PageLanguage {
    realm: PageRealm;
    form: PageForm;
}

export interface LoggedOutView extends PageLanguage {
    realm: PageRealm;
}

export interface ErrorView extends PageLanguage {
    /** null when the request named no known realm */
    realm: PageRealm | null;
    /** the error code (`invalid_request`, …) */
    error: string;
    message: string;
}

/** response_mode=form_post (OAuth 2.0 Form Post Response Mode): a form that posts to the redirect URI. */
export interface FormPostView extends PageLanguage {
    realm: PageRealm;
    form: PageForm;
}

/**
 * The second sign-in page (multi-factor sign-in with TOTP; RFC 6238): after a right password, a field labelled
 * "Authentication code" for the code of an authenticator app (RFC 6238), and a recovery code instead.
 * The form posts `otp` or `recovery_code`.
 */
export interface SecondFactorView extends PageLanguage {
    realm: PageRealm;
    client: PageClient;
    form: PageForm;
    /** a wrong or replayed code, throttled */
    error?: string;
    /** the user holds a passkey of a realm with passkeys on: offered beside the code */
    passkey?: PagePasskey;
    /** false when the user holds no TOTP authenticator (the code field is not shown); true when absent */
    totp?: boolean;
}

/**
 * After a password sign-in, when the realm's `passkeyPrompt` is on and the user holds no passkey
 * (API.md §8): "Add a passkey to sign in faster", with the passkey ceremony (a registration) and a
 * "Skip" button posting `form` as it is. Both go on with the flow.
 */
export interface PasskeyPromptView extends PageLanguage {
    realm: PageRealm;
    client: PageClient;
    form: PageForm;
    passkey: PagePasskey;
    /** a registration that failed */
    error?: string;
}

/**
 * The device verification page (RFC 8628 §3.3, spec `GET /device`), first step: a field "Code"
 * for the user code the device shows. The form posts `user_code`.
 */
export interface DeviceCodeView extends PageLanguage {
    /** null until the code names a realm */
    realm: PageRealm | null;
    form: PageForm;
    /** what was typed before an error */
    userCode?: string;
    /** an unknown or expired code, throttled */
    error?: string;
}

/** The device page's decision: the client, the scopes, buttons "Approve" and "Deny" (the form posts `decision` approve or deny). */
export interface DeviceConfirmView extends PageLanguage {
    realm: PageRealm;
    client: PageClient;
    /** who is signed in */
    user: string;
    /** the user code, for the user to compare with the device's (RFC 8628 §5.4) */
    userCode: string;
    scopes: readonly string[];
    form: PageForm;
    /** the user just signed in through this identity provider */
    federatedLogin?: FederatedLogin;
}

/** The device page's result: the device was approved or denied. */
export interface DeviceDoneView extends PageLanguage {
    realm: PageRealm;
    client: PageClient;
    approved: boolean;
}

export interface AuthConsole {
    CONTRACT_VERSION: number;
    renderSignIn(view: SignInView): string;
    renderConsent(view: ConsentView): string;
    renderLogout(view: LogoutView): string;
    renderLoggedOut(view: LoggedOutView): string;
    renderError(view: ErrorView): string;
    renderFormPost(view: FormPostView): string;
    renderSecondFactor(view: SecondFactorView): string;
    renderDeviceCode(view: DeviceCodeView): string;
    renderDeviceConfirm(view: DeviceConfirmView): string;
    renderDeviceDone(view: DeviceDoneView): string;
    /** optional (contract version 5): a module without it never shows the prompt */
    renderPasskeyPrompt?(view: PasskeyPromptView): string;
    /** served at /assets/auth.css */
    stylesheet: string;
}
