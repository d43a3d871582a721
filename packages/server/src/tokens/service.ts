import type { FailClosedWriter } from '../db/asynchronous-commit.js';
import type { DialectName } from '../db/values.js';
import type { KeyStore } from '../keys/store.js';
import { createTokenIssuer, type TokenIssuer, type TokenSettings } from './issuing.js';
import { createTokenVerifier, type TokenVerifier } from './verifying.js';

/** The token service the protocol endpoints and authentication share: issuing (tokens/issuing.ts) and verifying (tokens/verifying.ts). */
export interface TokenService extends TokenIssuer, TokenVerifier {
    readonly settings: TokenSettings;
}

export function createTokenService(dialect: DialectName, keys: KeyStore, settings: TokenSettings, failClosed?: FailClosedWriter): TokenService {
    const verifier = createTokenVerifier();
    return {
        settings,
        ...createTokenIssuer(dialect, keys, settings, failClosed, verifier.rememberSigned),
        ...verifier,
    };
}
