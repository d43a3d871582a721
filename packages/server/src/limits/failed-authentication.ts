/**
 * Spec Limits: only some failures count toward the 300 per minute per address — a wrong Basic
 * password, a wrong client secret, a bearer this deployment did not sign (and, as a failed login,
 * a wrong password at the password grant). Expired or revoked tokens, tokens of a disabled or
 * deleted key and requests without credentials do not. The code that knows which case it is marks
 * the error it throws; one hook counts marked errors (http/limits/plugin.ts).
 */
const marked = new WeakMap<object, FailedSignIn | null>();

/**
 * What a failed sign-in is about, when the code that refuses it knows (the event log's
 * `signInFailed`, spec Events 1): the realm tried and the identity, never the name or secret typed.
 */
export interface FailedSignIn {
    realmId: string | null;
    /** `identity`: a Basic name that matched no user or client with that secret */
    refType: 'user' | 'client' | 'identity';
    refId: string | null;
}

export function failedAuthentication<E extends Error>(error: E, signIn: FailedSignIn | null = null): E {
    marked.set(error, signIn);
    return error;
}

export function isFailedAuthentication(error: unknown): boolean {
    return typeof error === 'object' && error !== null && marked.has(error);
}

/** The sign-in a marked failure is about, or null when unmarked or not told. */
export function failedSignInOf(error: unknown): FailedSignIn | null {
    return typeof error === 'object' && error !== null ? marked.get(error) ?? null : null;
}
