import { describe, expect, it } from 'vitest';
import { createDeviceAuthorizationEndpoint } from './device/authorization-endpoint.js';
import { grantRegistry, supportedGrantTypes } from './grants/index.js';
import { createIntrospectionEndpoint } from './introspection-endpoint.js';
import { createRevocationEndpoint } from './revocation-endpoint.js';
import { createTokenEndpoint } from './token-endpoint.js';

// the step lists only: nothing runs, so no dependency is called
const deps = {} as Parameters<typeof createTokenEndpoint>[0] & Parameters<typeof createRevocationEndpoint>[0] & Parameters<typeof createIntrospectionEndpoint>[0] &
    Parameters<typeof grantRegistry>[0] & Parameters<typeof createDeviceAuthorizationEndpoint>[0];

describe('protocol endpoints as named steps', () => {
    it('authenticates before charging, then runs the rest (token)', () => {
        expect(createTokenEndpoint({ ...deps, grants: grantRegistry(deps) }).stepNames).toEqual({
            authenticate: ['parse parameters', 'grant type supported', 'resolve realm', 'authenticate client'],
            handle: ['client allows grant', 'grant client authentication', 'grant parameters', 'dpop proof', 'run grant'],
        });
    });

    it('shares the token-in-query, parameter and caller steps between revocation and introspection', () => {
        expect(createRevocationEndpoint(deps).stepNames).toEqual({
            authenticate: ['token not in the query string', 'parse parameters', 'token parameter required', 'authenticate caller'],
            handle: ['revoke'],
        });
        expect(createIntrospectionEndpoint(deps).introspect.stepNames).toEqual({
            authenticate: ['token not in the query string', 'parse parameters', 'authenticate caller'],
            handle: ['token parameter required', 'introspect token'],
        });
    });

    it('declares each grant\'s parameters and client authentication in the registry that discovery reads', () => {
        const grants = grantRegistry(deps);
        expect(supportedGrantTypes()).toEqual(grants.map((grant) => grant.type));
        expect(grants.map(({ type, clientAuthentication }) => [type, clientAuthentication])).toEqual([
            ['password', 'optional'], ['client_credentials', 'required'], ['refresh_token', 'optional'], ['authorization_code', 'optional'],
            ['urn:ietf:params:oauth:grant-type:device_code', 'optional'],
            ['urn:realmgate:params:oauth:grant-type:mfa-otp', 'optional'],
            ['urn:ietf:params:oauth:grant-type:token-exchange', 'required'],
        ]);
    });

    it('runs the device authorization request as the token endpoint does: authenticate, charge, then the rest (RFC 8628 §3.1)', () => {
        expect(createDeviceAuthorizationEndpoint({ ...deps, publicUrl: 'https://id.example.com' }).stepNames).toEqual({
            authenticate: ['parse parameters', 'resolve realm', 'authenticate client'],
            handle: ['client allows the device grant', 'resolve scope', 'mint codes'],
        });
    });
});
