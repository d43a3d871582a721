/*
 * The mail relay of a guide page whose reader starts one (the `smtp` marker of
 * scripts/guide-blocks.mjs): an SMTP server on loopback (smtp-server, as the server's tests use)
 * that keeps every mail, so the page's server can be started with `SMTP_URL` pointing at it and a
 * block that tells the reader to copy the code of a mailed link (the `mail` marker) is given it.
 */
import { SMTPServer } from 'smtp-server';

/** What a `mail` block says where the reader pastes the code of the link the mail carries. */
export const MAIL_CODE_PLACEHOLDER = '<code from the link>';

/** RFC 2045 §6.7 quoted-printable: soft line breaks and escapes undone, enough for the server's ASCII mail. */
function decodeQuotedPrintable(raw) {
    return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex) => String.fromCharCode(parseInt(hex, 16)));
}

/** The `code` parameter of the first link in a decoded mail that has one. */
function linkCode(text) {
    for (const [link] of text.matchAll(/https?:\/\/[^\s"<>]+/g)) {
        const code = new URL(link).searchParams.get('code');
        if (code) return code;
    }
    return null;
}

/**
 * Listens on a free loopback port. `smtpUrl` is what the page's server is started with: plain SMTP,
 * as the guide's own throwaway relay (it offers no STARTTLS, so the server sends without TLS), and
 * the guide's sender.
 */
export async function startMailRelay() {
    /** @type {string[]} the decoded mails, in the order they arrived */
    const received = [];
    let taken = 0;
    let arrived = () => {};
    const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onData(stream, _session, callback) {
            const chunks = [];
            stream.on('data', (chunk) => chunks.push(chunk));
            stream.on('end', () => {
                received.push(decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')));
                arrived();
                callback();
            });
        },
    });
    await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.server.address();
    return {
        smtpUrl: `smtp://127.0.0.1:${port}?from=auth@example.com`,
        /**
         * The code of the link in the next mail no earlier block took — the mail the reader was
         * told to open — waiting for it to arrive (the server may mail after it answered).
         * Rejects when no mail arrives within `timeout` milliseconds or the mail has no such link.
         */
        async nextCode(timeout) {
            let timer;
            const later = new Promise((_resolve, fail) => {
                timer = setTimeout(() => fail(new Error(`no mail arrived within ${timeout / 1000} s (${received.length} received, ${taken} taken)`)), timeout);
            });
            try {
                while (received.length <= taken) await Promise.race([new Promise((wake) => { arrived = wake; }), later]);
            } finally {
                clearTimeout(timer);
                arrived = () => {};
            }
            const mail = received[taken++];
            const code = linkCode(mail);
            if (code === null) throw new Error(`the mail has no link with a code:\n${mail}`);
            return code;
        },
        close: () => new Promise((closed) => server.close(closed)),
    };
}
