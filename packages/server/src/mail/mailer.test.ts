import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailServer, type MailServer } from '../../test/mail-server.js';
import { ConfigError } from '../config/parsers.js';
import { createMailer } from './mailer.js';
import { activationMail } from './templates.js';
import { transportSettings } from './transport.js';

const PUBLIC_URL = 'http://localhost:3000';
const noWarnings = () => {
    throw new Error('no warning expected');
};

/** spec Authentication 17 against a real relay with a self-signed certificate (test/mail-server.ts). */
describe('mailer and the relay certificate', () => {
    let server: MailServer;
    beforeAll(async () => {
        server = await startMailServer();
    });
    afterAll(async () => server.close());

    const message = (to: string) => activationMail({ name: 'acme', displayName: 'Acme <Corp>' }, to, 'http://localhost:3000/realms/acme/activate?code=abc', 24);

    it('refuses an untrusted relay certificate by default, for the URL and for the object form', async () => {
        for (const setting of [`smtp://127.0.0.1:${server.port}`, { host: '127.0.0.1', port: server.port }]) {
            const mailer = createMailer(setting, PUBLIC_URL, noWarnings)!;
            await expect(mailer.send(message('refused@example.test'))).rejects.toThrow(/certificate/i);
            mailer.close();
        }
        expect(server.received.filter((mail) => mail.to.includes('refused@example.test'))).toEqual([]);
    });

    it('delivers with ?tls.rejectUnauthorized=false, or rejectUnauthorized false in the object', async () => {
        const url = createMailer(`smtp://127.0.0.1:${server.port}?tls.rejectUnauthorized=false&from=auth%40example.test`, PUBLIC_URL, noWarnings)!;
        await url.send(message('url@example.test'));
        url.close();
        const object = createMailer({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false }, PUBLIC_URL, noWarnings)!;
        await object.send(message('object@example.test'));
        object.close();
        const viaUrl = await server.mailTo('url@example.test');
        expect(viaUrl.text).toMatch(/^From: auth@example\.test/m);
        expect(viaUrl.text).toContain('http://localhost:3000/realms/acme/activate?code=abc');
        // the HTML alternative escapes the realm's display name
        expect(viaUrl.text).toContain('Acme &lt;Corp&gt;');
        expect((await server.mailTo('object@example.test')).text).toMatch(/^From: no-reply@localhost/m);
    });

    it('verifies the certificate of an smtps:// relay (implicit TLS) too', async () => {
        const tls = await startMailServer({ secure: true });
        try {
            const strict = createMailer(`smtps://127.0.0.1:${tls.port}`, PUBLIC_URL, noWarnings)!;
            await expect(strict.send(message('tls@example.test'))).rejects.toThrow(/certificate/i);
            strict.close();
            const optedOut = createMailer(`smtps://127.0.0.1:${tls.port}?tls.rejectUnauthorized=false`, PUBLIC_URL, noWarnings)!;
            await optedOut.send(message('tls@example.test'));
            optedOut.close();
            expect((await tls.mailTo('tls@example.test')).to).toEqual(['tls@example.test']);
            expect(tls.received).toHaveLength(1);
        } finally {
            await tls.close();
        }
    });

    it('logs a failed dispatch without throwing, and settles', async () => {
        const warnings: Record<string, unknown>[] = [];
        const mailer = createMailer(`smtp://127.0.0.1:${server.port}`, PUBLIC_URL, (detail) => warnings.push(detail))!;
        mailer.dispatch(message('dispatched@example.test'));
        await mailer.settled();
        mailer.close();
        expect(warnings).toHaveLength(1);
        // the link of the mail never reaches the log
        expect(JSON.stringify(warnings)).not.toContain('code=abc');
    });

    it('is absent without a relay, and a malformed setting stops the boot naming SMTP_URL', () => {
        expect(createMailer(undefined, PUBLIC_URL, noWarnings)).toBeNull();
        expect(() => transportSettings('smtp://relay?tls.rejectUnauthorized=no', PUBLIC_URL)).toThrow(ConfigError);
        expect(() => transportSettings({ host: 'relay', rejectUnauthorized: 'false' as unknown as boolean }, PUBLIC_URL)).toThrow(/smtp\.rejectUnauthorized/);
        expect(transportSettings('smtps://user:p%40ss@relay:465', PUBLIC_URL).options).toMatchObject({
            host: 'relay', port: 465, secure: true, auth: { user: 'user', pass: 'p@ss' }, tls: { rejectUnauthorized: true },
        });
    });
});
