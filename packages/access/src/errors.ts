import { ErrorCode } from '@realmgate/core';

/**
 * Stable codes of every error the access library throws. Consumers switch on `code`, never on
 * `instanceof`: two bundled copies of the library have two distinct classes.
 */
export const AccessErrorCode = {
    /** A public function received input of the wrong shape; `path` names the field. */
    INVALID_INPUT: 'access_invalid_input',
    /** A policy configuration its type's validator refuses (also: unknown type, `$regex`). */
    INVALID_POLICY: 'access_invalid_policy',
    /** A policy type this library copy does not know (a newer type, or a withheld node). */
    UNKNOWN_POLICY_TYPE: 'access_unknown_policy_type',
    /** The catalog itself is malformed (spec consumer rule 3). */
    INVALID_CATALOG: 'access_invalid_catalog',
    /** Identity or grant list malformed or supplied inconsistently (spec consumer rules 3 and 6). */
    INVALID_IDENTITY: 'access_invalid_identity',
    INVALID_GRANTS: 'access_invalid_grants',
    /** An option the evaluator refuses (include, exclude, pending; spec consumer rule 9). */
    OPTION_REFUSED: 'access_option_refused',
    /** A grant names a definition or policy the catalog copy lacks (spec consumer rule 4). */
    CATALOG_STALE: 'authorization_catalog_stale',
    /** evaluate* denied. Equal to the server's permission_denied code. */
    PERMISSION_DENIED: ErrorCode.PERMISSION_DENIED,
} as const;

export type AccessErrorCode = typeof AccessErrorCode[keyof typeof AccessErrorCode];

export type PropertyPath = readonly (string | number)[];

export interface AccessErrorIssue {
    path: PropertyPath;
    message: string;
}

export class AccessError extends Error {
    readonly code: AccessErrorCode;

    readonly path: PropertyPath;

    constructor(code: AccessErrorCode, message: string, path: PropertyPath = []) {
        super(message);
        this.name = 'AccessError';
        this.code = code;
        this.path = path;
    }
}

function formatPath(path: PropertyPath): string {
    if (path.length === 0) {
        return '(root)';
    }
    let out = '';
    for (const part of path) {
        out += typeof part === 'number' ? `[${part}]` : (out.length ? `.${part}` : part);
    }
    return out;
}

/** Input of the wrong shape: the message always names the offending field. */
export function invalidInput(path: PropertyPath, expectation: string, code: AccessErrorCode = AccessErrorCode.INVALID_INPUT): AccessError {
    return new AccessError(code, `${formatPath(path)}: ${expectation}`, path);
}

/** Thrown by evaluate* on a denial; carries the names that were asked for. */
export class PermissionDeniedError extends AccessError {
    readonly permissions: readonly string[];

    constructor(permissions: readonly string[], message?: string) {
        super(AccessErrorCode.PERMISSION_DENIED, message ?? `Permission denied: ${permissions.join(', ')}`);
        this.name = 'PermissionDeniedError';
        this.permissions = permissions;
    }
}

export class AuthorizationCatalogStaleError extends AccessError {
    constructor(message: string, path: PropertyPath = []) {
        super(AccessErrorCode.CATALOG_STALE, message, path);
        this.name = 'AuthorizationCatalogStaleError';
    }
}

function hasCode(error: unknown, code: string): boolean {
    return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** Spec consumer rule 4: recognised by its code so it works across bundled copies; never instanceof. */
export function isAuthorizationCatalogStaleError(error: unknown): boolean {
    return hasCode(error, AccessErrorCode.CATALOG_STALE);
}

export function isPermissionDeniedError(error: unknown): boolean {
    return hasCode(error, AccessErrorCode.PERMISSION_DENIED);
}

export function isAccessError(error: unknown): error is AccessError {
    if (typeof error !== 'object' || error === null) {
        return false;
    }
    const { code } = error as { code?: unknown };
    return typeof code === 'string' && (Object.values(AccessErrorCode) as string[]).includes(code);
}
