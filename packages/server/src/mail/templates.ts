import type { MailMessage } from './mailer.js';

/**
 * Every text the server mails, in one place, so a deployment can review or translate them. Each template takes the realm as
 * the user knows it (its display name, else its name) and a link built from PUBLIC_URL; the HTML
 * alternative is the same text with the link as an anchor, every value escaped.
 */

export interface MailRealm {
    name: string;
    displayName: string | null;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (value: string): string => value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

const realmTitle = (realm: MailRealm): string => realm.displayName ?? realm.name;

interface Template {
    subject: (realm: string) => string;
    intro: (realm: string) => string;
    action: string;
    outro: (hours: number) => string;
}

const ACTIVATION: Template = {
    subject: (realm) => `Confirm your address for ${realm}`,
    intro: (realm) => `You created an account at ${realm}. Open this link to confirm that this address is yours:`,
    action: 'Confirm my address',
    outro: (hours) => `The link works once and expires in ${hours} hours. If you did not create this account, ignore this mail.`,
};

const RESET: Template = {
    subject: (realm) => `Reset your password for ${realm}`,
    intro: (realm) => `Someone asked to reset the password of your account at ${realm}. Open this link to choose a new one:`,
    action: 'Choose a new password',
    outro: (hours) => `The link works once and expires in ${hours === 1 ? '1 hour' : `${hours} hours`}. If you did not ask for this, ignore this mail: your password stays as it is.`,
};

function render(template: Template, realm: MailRealm, to: string, link: string, hours: number): MailMessage {
    const title = realmTitle(realm);
    const intro = template.intro(title);
    const outro = template.outro(hours);
    return {
        to,
        subject: template.subject(title),
        text: `${intro}\n\n${link}\n\n${outro}\n`,
        html: `<!doctype html><html><body><p>${escape(intro)}</p><p><a href="${escape(link)}">${escape(template.action)}</a></p>`
            + `<p>${escape(link)}</p><p>${escape(outro)}</p></body></html>`,
    };
}

export const activationMail = (realm: MailRealm, to: string, link: string, hours: number): MailMessage => render(ACTIVATION, realm, to, link, hours);

export const resetMail = (realm: MailRealm, to: string, link: string, hours: number): MailMessage => render(RESET, realm, to, link, hours);
