/**
 * Every text of the auth pages in one place, the English catalogue; the German one is
 * views/strings-de.ts, and views/locale.ts picks one per request. A deployment can reword them by
 * substituting the console module (AUTH_CONSOLE_PATH) without touching markup.
 */
export const STRINGS = {
    signInTitle: 'Sign in',
    signInHeading: (realm: string) => `Sign in to ${realm}`,
    signInFor: (client: string) => `to continue to ${client}`,
    usernameLabel: 'Username or email',
    passwordLabel: 'Password',
    signInButton: 'Sign in',
    forgotPasswordLink: 'Forgot password?',
    invalidCredentials: 'The username or password is incorrect.',
    tooManyAttempts: 'Too many sign-in attempts. Wait a moment and try again.',
    secondFactorTitle: 'Two-factor authentication',
    secondFactorPrompt: 'Enter the 6-digit code from your authenticator app.',
    otpLabel: 'Authentication code',
    recoveryToggle: 'Use a recovery code instead',
    recoveryLabel: 'Recovery code',
    verifyButton: 'Verify',
    invalidSecondFactor: 'The code is incorrect or was already used.',
    secondFactorExpired: 'The sign-in took too long or was already completed. Sign in again.',
    secondFactorSpent: 'Too many incorrect codes. Sign in again.',
    secondFactorLocked: 'Too many incorrect codes for this account. Two-factor sign-in is paused for a while; try again later.',
    directoryUnavailable: 'The directory that verifies your account could not be reached. Try again later.',
    passkeySignInButton: 'Sign in with a passkey',
    passkeySecondFactorButton: 'Use a passkey',
    passkeyOr: 'Or enter a code',
    passkeyFailed: 'The passkey could not be verified. Try again, or sign in with your password.',
    passkeysDisabled: 'Passkeys are not enabled for this realm. Sign in with your password.',
    passkeyUnsupported: 'This browser could not use a passkey.',
    passkeyDidNotWork: 'The passkey did not work. Try again.',
    passkeyPromptTitle: 'Add a passkey to sign in faster',
    passkeyPromptMessage: 'A passkey lets you sign in with your fingerprint, face or screen lock instead of a password. It cannot be phished.',
    passkeyAddButton: 'Add a passkey',
    passkeySkipButton: 'Skip',
    passkeyRegistrationFailed: 'The passkey was not added. You can try again or skip for now.',
    passkeyDefaultName: 'Passkey',
    signInWith: (provider: string) => `Sign in with ${provider}`,
    providersHeading: 'Or sign in with',
    federatedFailed: (provider: string) => `The sign-in through ${provider} did not succeed. Go back to the application and try again.`,
    federatedExpired: 'This sign-in through another provider expired, was already completed or was not started in this browser. Go back to the application and start again.',
    federatedAccountExists: (provider: string) => `An account with the email address that ${provider} gave already exists here. It is linked only when both that account and ${provider} have verified the address: sign in with the account's password, verify its address, then sign in with ${provider} again.`,
    federatedUnavailable: (provider: string) => `${provider} could not be reached or is not usable right now. Try again later.`,
    emailNotVerified: 'Your email address is not verified yet. Follow the link in the activation mail, then sign in again.',
    enrolmentRequired: 'This realm requires two-factor authentication and your account has no authenticator yet. Ask an administrator to enrol one for you.',
    deviceTitle: 'Connect a device',
    deviceHeading: 'Enter the code shown on your device',
    codeLabel: 'Code',
    deviceConfirmHeading: (client: string) => `${client} on a device wants to access your account`,
    deviceConfirmCode: (code: string) => `Make sure your device shows the code ${code}.`,
    approveButton: 'Approve',
    deviceApprovedTitle: 'Device connected',
    deviceApprovedMessage: (client: string) => `${client} is signed in. You can return to your device.`,
    deviceDeniedTitle: 'Access denied',
    deviceDeniedMessage: (client: string) => `${client} was not given access. You can close this page.`,
    deviceCodeUnknown: 'The code is unknown or has expired. Check the code on your device and try again.',
    deviceThrottled: (seconds: number) => `Too many wrong codes. Wait ${seconds} seconds and try again.`,
    deviceChooseDecision: 'Choose Approve or Deny.',
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
    formExpired: 'This form expired or was not sent from this site. Go back to the application and start again.',
    serverError: 'The server could not answer. Try again later.',
    identityProvider: 'The identity provider',
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
 * ---- Activation and password recovery by mail ----
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
    forgotTitle: 'Forgot password',
    forgotHeading: (realm: string) => `Reset your password for ${realm}`,
    forgotIntro: 'Enter your username or email address. If an account matches, we mail a link to choose a new password.',
    forgotButton: 'Mail me a link',
    forgotSentTitle: 'Check your mail',
    forgotSentMessage: 'If an account matches, a link to choose a new password was mailed to its address. The link works once, for an hour.',
    mailUnavailable: 'Password recovery by mail is not available on this server. Ask an administrator to reset your password.',
} as const;

/** A catalogue's shape: every text a string (any wording), every parameterised text the same function. */
type Catalogue<T> = { readonly [K in keyof T]: T[K] extends string ? string : T[K] };

/** The texts of the auth pages in one language. */
export type PageStrings = Catalogue<typeof STRINGS>;
/** The texts of the activation and password-recovery pages in one language. */
export type AccountStrings = Catalogue<typeof ACCOUNT_STRINGS>;
