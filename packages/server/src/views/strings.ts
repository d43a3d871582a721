/**
 * Every text of the auth pages in one place (issue 13 item 1), so a deployment can translate or
 * reword them by substituting the console module (AUTH_CONSOLE_PATH) without touching markup.
 */
export const STRINGS = {
    signInTitle: 'Sign in',
    signInHeading: (realm: string) => `Sign in to ${realm}`,
    signInFor: (client: string) => `to continue to ${client}`,
    usernameLabel: 'Username or email',
    passwordLabel: 'Password',
    signInButton: 'Sign in',
    invalidCredentials: 'The username or password is incorrect.',
    tooManyAttempts: 'Too many sign-in attempts. Wait a moment and try again.',
    secondFactorUnavailable: 'This account signs in with a second factor, which this page cannot ask for yet. Ask an administrator for help.',
    consentTitle: 'Authorize application',
    consentHeading: (client: string) => `${client} wants to access your account`,
    consentScopes: 'It asks for:',
    consentSignedInAs: (user: string) => `Signed in as ${user}`,
    allowButton: 'Allow',
    denyButton: 'Deny',
    logoutTitle: 'Sign out',
    logoutQuestion: (realm: string) => `Do you want to sign out of ${realm}?`,
    logoutButton: 'Sign out',
    loggedOutTitle: 'Signed out',
    loggedOutMessage: 'You are signed out.',
    errorTitle: 'Something went wrong',
    formPostTitle: 'Continue',
    formPostMessage: 'Continue to the application.',
    continueButton: 'Continue',
    scopeDescriptions: {
        openid: 'Your identity',
        profile: 'Your profile (name, display name)',
        email: 'Your email address',
        offline_access: 'Access while you are away',
    } as Readonly<Record<string, string>>,
} as const;

/*
 * ---- Activation and password recovery by mail (issue 14 item 3) ----
 * The texts of the pages the mailed links open (views/account-pages.ts); the mails' own texts are
 * in mail/templates.ts.
 */
export const ACCOUNT_STRINGS = {
    activateTitle: 'Confirm your address',
    activateHeading: (realm: string) => `Confirm your address for ${realm}`,
    activateIntro: 'Press the button to confirm that this address belongs to your account.',
    activateButton: 'Confirm my address',
    activatedTitle: 'Address confirmed',
    activatedMessage: 'Your address is confirmed. You can close this page.',
    resetTitle: 'Choose a new password',
    resetHeading: (realm: string) => `Choose a new password for ${realm}`,
    newPasswordLabel: 'New password',
    repeatPasswordLabel: 'Repeat the new password',
    resetButton: 'Set password',
    passwordsDiffer: 'The two passwords differ.',
    passwordLength: (min: number, max: number) => `The password must have ${min} to ${max} characters.`,
    resetDoneTitle: 'Password set',
    resetDoneMessage: 'Your new password is set and every earlier sign-in has ended. Sign in again with the new password.',
    linkInvalid: 'This link is unknown, was already used or has expired. Ask for a new one.',
} as const;
