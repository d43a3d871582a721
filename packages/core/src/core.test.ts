import { describe, expect, it } from 'vitest';
import {
    DecisionStrategy,
    ERROR_CODES,
    ERROR_CODE_STATUS,
    ErrorCode,
    IdentityType,
    PERMISSION_NAMES,
    PermissionName,
    RealmScope,
    TOKEN_KINDS,
    isErrorCode,
    isPermissionName,
    isRealmScope,
} from './index.js';

describe('core vocabulary', () => {
    it('names the four realm scopes exactly', () => {
        expect(Object.values(RealmScope)).toEqual(['own', 'ownOrNull', 'any', 'none']);
        expect(isRealmScope('ownOrNull')).toBe(true);
        expect(isRealmScope('global')).toBe(false);
    });

    it('names the decision strategies and identity types', () => {
        expect(Object.values(DecisionStrategy)).toEqual(['unanimous', 'affirmative', 'consensus']);
        expect(Object.values(IdentityType)).toEqual(['user', 'client']);
    });

    it('names the five token kinds', () => {
        expect(TOKEN_KINDS).toEqual(['access_token', 'refresh_token', 'id_token', 'mfa_token', 'logout_token']);
    });

    it('maps every permission key to its snake_case value', () => {
        for (const [key, value] of Object.entries(PermissionName)) {
            expect(value).toBe(key.toLowerCase());
        }
        expect(PermissionName.PERMISSION_READ).toBe('permission_read');
        expect(isPermissionName('permission_check')).toBe(true);
        expect(new Set(PERMISSION_NAMES).size).toBe(PERMISSION_NAMES.length);
    });

    it('has a create/read/update/delete set for every administered resource', () => {
        const resources = ['realm', 'user', 'client', 'role', 'permission', 'policy', 'scope', 'user_role',
            'client_role', 'role_permission', 'user_permission', 'client_permission', 'permission_policy',
            'client_scope', 'user_attribute', 'role_attribute', 'session', 'session_token', 'key',
            'identity_provider', 'path', 'event'];
        for (const resource of resources) {
            for (const action of ['create', 'read', 'update', 'delete']) {
                expect(isPermissionName(`${resource}_${action}`), `${resource}_${action}`).toBe(true);
            }
        }
        // dynamic registration (RFC 7591 §1.2): its tokens are created, read and deleted, never updated
        for (const action of ['create', 'read', 'delete']) expect(isPermissionName(`initial_access_token_${action}`)).toBe(true);
        expect(PermissionName.CLIENT_SELF_MANAGE).toBe('client_self_manage');
        expect(PermissionName.USER_SELF_MANAGE).toBe('user_self_manage');
    });

    it('maps every error code to an HTTP status, values equal to their lower-cased keys', () => {
        for (const [key, value] of Object.entries(ErrorCode)) {
            expect(value).toBe(key.toLowerCase());
            expect(ERROR_CODE_STATUS[value]).toBeTypeOf('number');
        }
        expect(Object.keys(ERROR_CODE_STATUS).sort()).toEqual([...ERROR_CODES].sort());
        for (const code of ['authorization_pending', 'slow_down', 'device_code_expired', 'device_verification_throttled']) {
            expect(isErrorCode(code)).toBe(true);
        }
        expect(ERROR_CODE_STATUS.too_many_requests).toBe(429);
        expect(ERROR_CODE_STATUS.permission_denied).toBe(403);
    });
});
