/**
 * Spec Limits: only some failures count toward the 300 per minute per address — a wrong Basic
 * password, a wrong client secret, a bearer this deployment did not sign (and, as a failed login,
 * a wrong password at the password grant). Expired or revoked tokens, tokens of a disabled or
 * deleted key and requests without credentials do not. The code that knows which case it is marks
 * the error it throws; one hook counts marked errors (http/limits/plugin.ts).
 */
const marked = new WeakSet<object>();

export function failedAuthentication<E extends Error>(error: E): E {
    marked.add(error);
    return error;
}

export function isFailedAuthentication(error: unknown): boolean {
    return typeof error === 'object' && error !== null && marked.has(error);
}
