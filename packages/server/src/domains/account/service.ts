import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import { AppError, issue, notFound, forbidden, validationFailed } from '../../errors/app-error.js';
import { mailNotConfigured, type Mailer } from '../../mail/mailer.js';
import { activationMail, resetMail } from '../../mail/templates.js';
import { randomToken, sha256Hex } from '../../secrets/digests.js';
import type { PasswordHasher } from '../../secrets/passwords.js';
import {
    ACTIVATION_CODE, RESET_CODE, consumeCode, findAccountRealm, findCodeHolder, findRecoveryTarget, findVerificationTarget, insertRegisteredUser, storeCode,
    type AccountRealm,
} from '../../storage/account-codes.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import { grantDefaultRoles } from '../../storage/default-roles.js';
import type { SessionStore } from '../../tokens/sessions.js';
import { assertNameNotUuid } from '../users/identity-rules.js';
import { recordEvent } from '../events.js';

/** A reset link is short-lived (OWASP Forgot Password Cheat Sheet: a short expiry); an activation link has a day. */
const RESET_CODE_HOURS = 1;
const ACTIVATION_CODE_HOURS = 24;
const HOUR_MS = 3_600_000;

export interface AccountDeps {
    db: Kysely<Database>;
    handle: { dialect: DialectName };
    catalog: { invalidate(): void };
    passwords: PasswordHasher;
    sessions: SessionStore;
    /** null without SMTP_URL: the routes that send mail answer mailNotConfigured() */
    mailer: Mailer | null;
    /**
     * Counts a mail of this kind to this address (limits/mail-throttle.ts: one a minute, five an
     * hour); null when it may leave, else the seconds to wait.
     */
    mailThrottle: { admit(kind: 'reset' | 'activation', address: string): Promise<number | null> };
    /** PUBLIC_URL without a trailing slash: the mailed links start with it */
    publicUrl: string;
    /** the clock of code expiry (tests move it) */
    clock: () => number;
}

export interface Registration {
    name: string;
    email: string;
    password: string;
}

/** Who asks for a reset link: a user name, or an address. */
export type RecoveryRequest = { name: string } | { email: string };

export interface RegisteredAccount {
    id: string;
    name: string;
    realmId: string;
    emailVerified: false;
}

export interface AccountService {
    register(realm: string, registration: Registration): Promise<RegisteredAccount>;
    activate(realm: string, code: string): Promise<{ userId: string }>;
    forgotPassword(realm: string, request: RecoveryRequest): Promise<void>;
    resetPassword(realm: string, code: string, password: string): Promise<void>;
    /**
     * mails an activation link to the user's own unverified address (after a self-service email
     * change, or again); answers the address and whether the realm requires verification to sign in
     */
    sendVerification(userId: string): Promise<{ email: string; emailVerificationRequired: boolean }>;
    /** whether a code of this kind is live in the realm (the pages check it before showing a form) */
    codeIsLive(realm: string, kind: 'activation' | 'reset', code: string): Promise<boolean>;
}

/** The `user.<action>` entry of an account change (no actor: the mailed code is the proof). */
const userEvent = (action: 'created' | 'updated', id: string, realmId: string) => ({ name: `user.${action}`, refType: 'user', refId: id, realmId });

const invalidCode = () => validationFailed([issue(['code'], 'invalid', 'is unknown, already used or expired')]);

/**
 * Activation and recovery by mail (spec States "activation round-trip",
 * "user password reset"; spec Endpoints POST /password-forgot). Codes are 256-bit
 * (secrets/digests.ts), mailed once, stored as their SHA-256 digest, expire and are single use.
 */
export function createAccountService(deps: AccountDeps): AccountService {
    const { db } = deps;
    const dialect = deps.handle.dialect;
    const now = () => new Date(deps.clock());
    const mailer = (): Mailer => {
        if (!deps.mailer) throw mailNotConfigured();
        return deps.mailer;
    };
    const realmOf = async (key: string): Promise<AccountRealm> => {
        const realm = await findAccountRealm(db, key);
        if (!realm) throw notFound('realm');
        return realm;
    };
    const link = (realm: AccountRealm, page: string, code: string) =>
        `${deps.publicUrl}/realms/${encodeURIComponent(realm.name)}/${page}?${new URLSearchParams({ code }).toString()}`;
    const expired = (issuedAt: Date | null, hours: number) => issuedAt === null || issuedAt.getTime() + hours * HOUR_MS <= deps.clock();
    const tx = <T>(work: (db: Kysely<Database>, lock: boolean) => Promise<T>) =>
        writeTransaction({ db, handle: deps.handle, catalog: deps.catalog }, { preload: async () => undefined }, (trx, lock) => work(trx, lock.forUpdate));

    return {
        async register(realmKey, registration) {
            const realm = await realmOf(realmKey);
            // API.md §7 realm setting registrationEnabled, off by default: an administrator opens the realm
            if (!realm.registrationEnabled) throw forbidden('Self-registration is not enabled in this realm.');
            const sender = mailer();
            assertNameNotUuid(registration.name);
            const code = randomToken();
            const user = {
                id: randomUUID(), realmId: realm.id, name: registration.name, email: registration.email,
                passwordHash: await deps.passwords.hash(registration.password), activationDigest: sha256Hex(code),
            };
            // a taken name is a unique violation: 409 like any other user create
            const account: RegisteredAccount = { id: user.id, name: user.name, realmId: realm.id, emailVerified: false };
            await tx(async (trx) => {
                await insertRegisteredUser(trx, dialect, user, now());
                // API.md §8: the realm's default roles come with the account, or neither exists
                await grantDefaultRoles(trx, dialect, { id: user.id, realmId: realm.id }, { scope: 'api' }, now());
                // spec Events 4 and 5: the entry carries what a default read shows (no email, no hash, no code)
                await recordEvent(trx, dialect, null, { ...userEvent('created', user.id, realm.id), data: { ...account, active: true } });
            });
            // the account exists either way; a throttled address gets no further mail (a stranger
            // registering names with someone's address cannot flood it): a resend later sends one
            if (await deps.mailThrottle.admit('activation', user.email) === null) {
                sender.dispatch(activationMail(realm, user.email, link(realm, 'activate', code), ACTIVATION_CODE_HOURS));
            }
            return account;
        },

        async activate(realmKey, code) {
            const realm = await realmOf(realmKey);
            const digest = sha256Hex(code);
            return tx(async (trx, lock) => {
                const holder = await findCodeHolder(trx, ACTIVATION_CODE, realm.id, digest, lock);
                if (!holder || expired(holder.issuedAt, ACTIVATION_CODE_HOURS)) throw invalidCode();
                // spec States: the activation round-trip sets emailVerified
                if (!await consumeCode(trx, dialect, ACTIVATION_CODE, { id: holder.id, digest }, { emailVerified: true }, now())) throw invalidCode();
                await recordEvent(trx, dialect, null, { ...userEvent('updated', holder.id, realm.id), data: { id: holder.id, emailVerified: true } });
                return { userId: holder.id };
            });
        },

        async forgotPassword(realmKey, request) {
            const realm = await realmOf(realmKey);
            const sender = mailer();
            const target = 'name' in request
                ? await findRecoveryTarget(db, realm.id, 'name', request.name)
                : await findRecoveryTarget(db, realm.id, 'email', request.email);
            const usable = target?.active === true && target.email !== null ? target : undefined;
            // the mails to one address are throttled (one a minute, five an hour): a stranger cannot
            // flood an inbox through this route. A throttled request stores no new code, so the link
            // mailed last keeps working. The counter is charged for an unknown user too (keyed by
            // what was typed), so the work, and the time, is the same either way.
            const admitted = await deps.mailThrottle.admit('reset', usable?.email ?? ('name' in request ? `name:${request.name}` : request.email)) === null;
            const recipient = admitted ? usable : undefined;
            // spec Endpoints: the same answer, in comparable time, for a known and an unknown user or
            // address. The same work runs either way: a code is drawn and digested and the same UPDATE
            // is sent (matching no row when there is no one to mail); the mail leaves off this path.
            const code = randomToken();
            await storeCode(db, dialect, RESET_CODE, recipient?.id ?? randomUUID(), sha256Hex(code), now());
            if (recipient) sender.dispatch(resetMail(realm, recipient.email!, link(realm, 'reset-password', code), RESET_CODE_HOURS));
        },

        async resetPassword(realmKey, code, password) {
            const realm = await realmOf(realmKey);
            const digest = sha256Hex(code);
            const hash = await deps.passwords.hash(password);
            await tx(async (trx, lock) => {
                const holder = await findCodeHolder(trx, RESET_CODE, realm.id, digest, lock);
                if (!holder || !holder.active || expired(holder.issuedAt, RESET_CODE_HOURS)) throw invalidCode();
                if (!await consumeCode(trx, dialect, RESET_CODE, { id: holder.id, digest }, { password: hash }, now())) throw invalidCode();
                // the password itself is no field: the entry names the user only
                await recordEvent(trx, dialect, null, { ...userEvent('updated', holder.id, realm.id), data: { id: holder.id } });
                // spec States "user password reset": every session of the user ends; through the
                // sessions store, so back-channel logout is sent once this commits
                await deps.sessions.endOfSubject(trx, { kind: 'user', id: holder.id });
            });
        },

        async sendVerification(userId) {
            const target = await findVerificationTarget(db, userId);
            if (!target) throw notFound('user');
            if (target.email === null) throw validationFailed([issue(['email'], 'required', 'the account has no address to verify')]);
            if (target.emailVerified) throw validationFailed([issue(['email'], 'verified', 'the address is verified already')]);
            const realm = await realmOf(target.realmId);
            const sender = mailer();
            // one's own resend is throttled as the anonymous mails are; the caller is authenticated,
            // so it is told to wait (spec Limits: 429 with Retry-After) rather than answered as sent
            const wait = await deps.mailThrottle.admit('activation', target.email);
            if (wait !== null) throw new AppError(ErrorCode.TOO_MANY_REQUESTS, 'An activation mail was sent to this address a moment ago; wait before asking again.', { retryAfter: wait });
            // the activation round-trip of registration (spec States): only the latest link works
            const code = randomToken();
            await storeCode(db, dialect, ACTIVATION_CODE, target.id, sha256Hex(code), now());
            sender.dispatch(activationMail(realm, target.email, link(realm, 'activate', code), ACTIVATION_CODE_HOURS));
            return { email: target.email, emailVerificationRequired: target.emailVerificationRequired };
        },

        async codeIsLive(realmKey, kind, code) {
            const realm = await findAccountRealm(db, realmKey);
            if (!realm) return false;
            const columns = kind === 'activation' ? ACTIVATION_CODE : RESET_CODE;
            const holder = await findCodeHolder(db, columns, realm.id, sha256Hex(code), false);
            return holder !== undefined && !expired(holder.issuedAt, kind === 'activation' ? ACTIVATION_CODE_HOURS : RESET_CODE_HOURS);
        },
    };
}
