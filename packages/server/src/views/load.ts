import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../config/parsers.js';
import { REQUIRED_CONTRACT_VERSION, type AuthConsole } from './contract.js';
import * as defaultConsole from './index.js';

const RENDERERS = [
    'renderSignIn', 'renderConsent', 'renderLogout', 'renderLoggedOut', 'renderError', 'renderFormPost',
    'renderSecondFactor', 'renderDeviceCode', 'renderDeviceConfirm', 'renderDeviceDone',
] as const;

/**
 * The auth console the pages are rendered with: the built-in one, or the module AUTH_CONSOLE_PATH
 * names (a path, relative to the working directory, or a file URL). Spec "A service that fails to
 * start": a substituted module whose CONTRACT_VERSION differs from 5 (missing means 1), or that
 * lacks a render function, stops the boot with an error naming the path and both versions.
 */
export async function loadAuthConsole(path: string | undefined): Promise<AuthConsole> {
    if (path === undefined) return defaultConsole;
    const url = path.startsWith('file:') ? path : pathToFileURL(isAbsolute(path) ? path : resolve(path)).href;
    let loaded: Record<string, unknown>;
    try {
        loaded = await import(url) as Record<string, unknown>;
    } catch (error) {
        throw new ConfigError('AUTH_CONSOLE_PATH', `AUTH_CONSOLE_PATH: the auth console module ${path} cannot be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    const declared = loaded.CONTRACT_VERSION ?? 1;
    if (declared !== REQUIRED_CONTRACT_VERSION) {
        throw new ConfigError('AUTH_CONSOLE_PATH', `AUTH_CONSOLE_PATH: the auth console module ${path} declares CONTRACT_VERSION ${String(declared)}${loaded.CONTRACT_VERSION === undefined ? ' (missing means 1)' : ''}; this server requires version ${REQUIRED_CONTRACT_VERSION}.`);
    }
    const missing = RENDERERS.filter((name) => typeof loaded[name] !== 'function');
    if (missing.length > 0) {
        throw new ConfigError('AUTH_CONSOLE_PATH', `AUTH_CONSOLE_PATH: the auth console module ${path} does not export ${missing.join(', ')} (contract version ${REQUIRED_CONTRACT_VERSION}).`);
    }
    return {
        ...(loaded as unknown as Omit<AuthConsole, 'stylesheet'>),
        CONTRACT_VERSION: REQUIRED_CONTRACT_VERSION,
        stylesheet: typeof loaded.stylesheet === 'string' ? loaded.stylesheet : defaultConsole.stylesheet,
    };
}
