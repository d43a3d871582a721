import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/*
 * A real SMTP relay on loopback (smtp-server), with a self-signed certificate made by the openssl
 * CLI at test time. It offers STARTTLS, so a client that verifies the certificate (spec
 * Authentication 17) fails against it and only the explicit opt-out delivers.
 */

export interface ReceivedMail {
    to: string[];
    /** the message as sent (RFC 5322) */
    raw: string;
    /** the decoded message: quoted-printable soft breaks and escapes undone */
    text: string;
}

export interface MailServer {
    port: number;
    received: ReceivedMail[];
    /** the next mail to this address (already received or still to come) */
    mailTo(address: string): Promise<ReceivedMail>;
    close(): Promise<void>;
}

/** RFC 2045 §6.7 quoted-printable, enough for the server's ASCII mail. */
function decodeQuotedPrintable(raw: string): string {
    return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
    const dir = mkdtempSync(join(tmpdir(), 'realmgate-smtp-'));
    try {
        execFileSync('openssl', [
            'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
            '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
            '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
        ], { stdio: 'ignore' });
        return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

/** `secure`: implicit TLS from the first byte (an `smtps://` relay) instead of STARTTLS. */
export async function startMailServer(options: { secure?: boolean } = {}): Promise<MailServer> {
    const received: ReceivedMail[] = [];
    const waiting: Array<{ address: string; resolve(mail: ReceivedMail): void }> = [];
    const server = new SMTPServer({
        ...selfSignedCertificate(),
        secure: options.secure === true,
        authOptional: true,
        logger: false,
        onData(stream, session, callback) {
            const chunks: Buffer[] = [];
            stream.on('data', (chunk: Buffer) => chunks.push(chunk));
            stream.on('end', () => {
                const raw = Buffer.concat(chunks).toString('utf8');
                const mail = { to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw, text: decodeQuotedPrintable(raw) };
                received.push(mail);
                for (const waiter of [...waiting]) {
                    if (mail.to.includes(waiter.address)) {
                        waiting.splice(waiting.indexOf(waiter), 1);
                        waiter.resolve(mail);
                    }
                }
                callback();
            });
        },
    });
    // a client refusing the certificate drops the connection mid-handshake: expected here, not a failure of the relay
    server.on('error', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    return {
        port,
        received,
        mailTo(address) {
            const found = received.find((mail) => mail.to.includes(address));
            if (found) return Promise.resolve(found);
            return new Promise((resolve) => waiting.push({ address, resolve }));
        },
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
}

/** The first link of a received mail that starts with `prefix` (the text part, decoded). */
export function linkIn(mail: ReceivedMail, prefix: string): string {
    const match = mail.text.match(new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\\s"<>]+`));
    if (!match) throw new Error(`no link starting with ${prefix} in the mail:\n${mail.text}`);
    return match[0];
}
