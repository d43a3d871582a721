import type { ConsentView, DeviceConfirmView, SignInView } from '../../src/views/contract.js';
import * as builtIn from '../../src/views/index.js';

/*
 * A substituted auth console module (AUTH_CONSOLE_PATH, contract version 5) for the federated
 * sign-in tests: the built-in pages, with the render data of the sign-in, consent and device
 * decision pages recorded where the test reads them (providers, federatedLogin).
 */
export interface RecordedViews {
    signIn: SignInView[];
    consent: ConsentView[];
    deviceConfirm: DeviceConfirmView[];
}

const KEY = Symbol.for('realmgate.test.recorded-views');
type Holder = { [KEY]?: RecordedViews };

export function recordedViews(): RecordedViews {
    const holder = globalThis as Holder;
    holder[KEY] ??= { signIn: [], consent: [], deviceConfirm: [] };
    return holder[KEY];
}

export const CONTRACT_VERSION = 5;
export const { renderLogout, renderLoggedOut, renderError, renderFormPost, renderSecondFactor, renderDeviceCode, renderDeviceDone, stylesheet } = builtIn;
export function renderSignIn(view: SignInView): string {
    recordedViews().signIn.push(view);
    return builtIn.renderSignIn(view);
}
export function renderConsent(view: ConsentView): string {
    recordedViews().consent.push(view);
    return builtIn.renderConsent(view);
}
export function renderDeviceConfirm(view: DeviceConfirmView): string {
    recordedViews().deviceConfirm.push(view);
    return builtIn.renderDeviceConfirm(view);
}
