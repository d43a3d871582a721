import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { SmtpObject, SmtpSetting } from '../config/schema.js';
import { ConfigError } from '../config/parsers.js';

/** What the mailer needs to build its one transport: nodemailer's SMTP options and the sender. */
export interface TransportSettings {
    options: SMTPTransport.Options;
    from: string;
}

const fail = (message: string): never => {
    throw new ConfigError('SMTP_URL', `Invalid configuration: ${message}`);
};

/**
 * SMTP_URL (spec Authentication 17): the relay certificate is verified for every form; only
 * `tls.rejectUnauthorized=false` in the query turns that off. `from` in the query is the sender.
 * The URL is read here rather than handed to nodemailer, so no other query member can loosen TLS.
 */
function fromUrl(raw: string): Omit<SmtpObject, 'from'> & { from: string | undefined } {
    const url = new URL(raw);
    const query = url.searchParams;
    const reject = query.get('tls.rejectUnauthorized');
    if (reject !== null && reject !== 'true' && reject !== 'false') fail('SMTP_URL tls.rejectUnauthorized must be `true` or `false`.');
    return {
        host: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        secure: url.protocol === 'smtps:',
        ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
        rejectUnauthorized: reject !== 'false',
        from: query.get('from') ?? undefined,
    };
}

/**
 * The config file's `smtp` object, checked member by member (the file is parsed elsewhere; a
 * wrong type here stops the boot with the member named, as a bad variable does).
 */
function checkObject(value: SmtpObject): SmtpObject {
    const object = value as unknown as Record<string, unknown>;
    if (typeof object.host !== 'string' || object.host === '') fail('smtp.host must be a host name.');
    if (object.port !== undefined && !(Number.isInteger(object.port) && (object.port as number) >= 1 && (object.port as number) <= 65535)) fail('smtp.port must be an integer from 1 to 65535.');
    for (const key of ['secure', 'rejectUnauthorized'] as const) {
        if (object[key] !== undefined && typeof object[key] !== 'boolean') fail(`smtp.${key} must be true or false.`);
    }
    const auth = object.auth as Record<string, unknown> | undefined;
    if (auth !== undefined && (typeof auth !== 'object' || auth === null || typeof auth.user !== 'string' || typeof auth.pass !== 'string')) fail('smtp.auth must be { user, pass }.');
    if (object.from !== undefined && typeof object.from !== 'string') fail('smtp.from must be an address.');
    return value;
}

/**
 * Both forms of the mail relay setting as nodemailer options. The default sender is
 * `no-reply@<PUBLIC_URL host>`, so a link and its sender name the same site.
 */
export function transportSettings(setting: SmtpSetting, publicUrl: string): TransportSettings {
    const relay = typeof setting === 'string' ? fromUrl(setting) : checkObject(setting);
    return {
        options: {
            host: relay.host,
            ...(relay.port !== undefined ? { port: relay.port } : {}),
            secure: relay.secure ?? false,
            ...(relay.auth ? { auth: relay.auth } : {}),
            // spec Authentication 17: verified unless explicitly turned off
            tls: { rejectUnauthorized: relay.rejectUnauthorized !== false },
        },
        from: relay.from ?? `no-reply@${new URL(publicUrl).hostname}`,
    };
}
