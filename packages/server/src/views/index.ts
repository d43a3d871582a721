/**
 * The default auth console (replaceable through AUTH_CONSOLE_PATH): server-rendered pages that work without JavaScript.
 * A deployment may substitute another module with the same exports (AUTH_CONSOLE_PATH); the server
 * refuses to boot when its CONTRACT_VERSION is not the one this entry declares (views/load.ts).
 */
export const CONTRACT_VERSION = 5;
export {
    renderConsent, renderDeviceCode, renderDeviceConfirm, renderDeviceDone, renderError, renderFormPost, renderLoggedOut, renderLogout,
    renderSecondFactor, renderSignIn,
} from './pages.js';
export { renderPasskeyPrompt } from './passkey-pages.js';
export { STYLESHEET as stylesheet } from './assets.js';
