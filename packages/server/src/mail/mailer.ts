import { ErrorCode } from '@realmgate/core';
import { createTransport, type Transporter } from 'nodemailer';
import type { SmtpSetting } from '../config/schema.js';
import { AppError } from '../errors/app-error.js';
import { transportSettings } from './transport.js';

/** One mail: a subject, a plain-text body and a simple HTML alternative (templates.ts). */
export interface MailMessage {
    to: string;
    subject: string;
    text: string;
    html: string;
}

export interface Mailer {
    /** delivers and waits for the relay's answer; rejects when the relay refuses (certificate, address, …) */
    send(message: MailMessage): Promise<void>;
    /**
     * Delivers off the request's critical path: the answer of `POST /password-forgot` must not
     * wait on the relay, or its time would tell a known address from an unknown one (spec
     * Endpoints). A failure is logged (never the address or the link), not thrown.
     */
    dispatch(message: MailMessage): void;
    /** waits for the deliveries dispatched so far (shutdown, tests) */
    settled(): Promise<void>;
    close(): void;
}

/**
 * Without SMTP_URL a route that must send mail cannot do its job: 503 naming the setting, so the
 * operator knows what to configure. Its own code (docs/reference/errors.md `mail_unavailable`): a client
 * tells a missing service from a server fault, which `internal_error` masks.
 */
export function mailNotConfigured(): AppError {
    return new AppError(ErrorCode.MAIL_UNAVAILABLE, 'Mail delivery is not configured on this server: set SMTP_URL (or the smtp object of the config file).');
}

/**
 * The mailer: one nodemailer transport, created once (it pools nothing by default, so each mail
 * opens its own connection and a relay restart costs no stale socket). Null when no relay is
 * configured; the account service answers mailNotConfigured() then.
 */
export function createMailer(setting: SmtpSetting | undefined, publicUrl: string, warn: (detail: Record<string, unknown>, message: string) => void): Mailer | null {
    if (setting === undefined) return null;
    const { options, from } = transportSettings(setting, publicUrl);
    const transport: Transporter = createTransport(options);
    const pending = new Set<Promise<void>>();
    const send = async (message: MailMessage): Promise<void> => {
        await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    };
    return {
        send,
        dispatch(message) {
            const delivery = send(message).catch((error: unknown) => {
                // the error's code and message only: the mail carries a live link
                const err = error as { code?: unknown; message?: unknown };
                warn({ code: err.code, reason: typeof err.message === 'string' ? err.message : String(error) }, 'mail delivery failed');
            }).finally(() => pending.delete(delivery));
            pending.add(delivery);
        },
        async settled() {
            await Promise.all([...pending]);
        },
        close() {
            transport.close();
        },
    };
}
