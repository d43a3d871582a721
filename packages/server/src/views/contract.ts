/**
 * The contract of the auth console module (issue 13 item 1; spec "A service that fails to start"):
 * the entry exports `CONTRACT_VERSION` and one render function per page. Each takes plain data
 * and returns a whole HTML document; escaping is the module's job. The server sets the status,
 * the headers (Content-Security-Policy, framing, caching) and the cookies.
 */

/** The version of this contract; a substituted module must declare the same (missing means 1). */
export const REQUIRED_CONTRACT_VERSION = 5;

/** The realm a page belongs to: its display name when set, else its name, is shown. */
export interface PageRealm {
    name: string;
    displayName: string | null;
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

export interface SignInView {
    realm: PageRealm;
    client: PageClient;
    form: PageForm;
    /** prefilled username (`login_hint`, or what was typed before a failure) */
    username?: string;
    /** a message shown above the form (wrong credentials, throttled) */
    error?: string;
}

export interface ConsentView {
    realm: PageRealm;
    client: PageClient;
    /** who is signed in */
    user: string;
    /** the scopes asked for, by name */
    scopes: readonly string[];
    form: PageForm;
}

export interface LogoutView {
    realm: PageRealm;
    form: PageForm;
}

export interface LoggedOutView {
    realm: PageRealm;
}

export interface ErrorView {
    /** null when the request named no known realm */
    realm: PageRealm | null;
    /** the error code (`invalid_request`, …) */
    error: string;
    message: string;
}

/** response_mode=form_post (OAuth 2.0 Form Post Response Mode): a form that posts to the redirect URI. */
export interface FormPostView {
    realm: PageRealm;
    form: PageForm;
}

export interface AuthConsole {
    CONTRACT_VERSION: number;
    renderSignIn(view: SignInView): string;
    renderConsent(view: ConsentView): string;
    renderLogout(view: LogoutView): string;
    renderLoggedOut(view: LoggedOutView): string;
    renderError(view: ErrorView): string;
    renderFormPost(view: FormPostView): string;
    /** served at /assets/auth.css */
    stylesheet: string;
}
