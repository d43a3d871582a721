import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { decide } from '../../oauth2/authorize/flow.js';
import { contract } from '../contracts/route-contract.js';
import { sendOutcome, type BrowserContext } from '../authorize-render.js';
import { answerPasskeyPrompt, passkeyOptions, passkeyStep } from '../passkey-sign-in.js';
import { signInForm, validatedForm } from './authorize-forms.js';

const FORM = ['application/x-www-form-urlencoded'] as const;
const PAGE = Type.String({ description: 'An HTML page (sign-in again, consent, form_post or error).' });
const REDIRECT = Type.Null({ description: 'See Other: the authorization response at the redirect URI.' });

/** The offer's answer (Skip or a new passkey), then the flow goes on in the session it was shown to. */
async function passkeyPrompt(context: BrowserContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const checked = await validatedForm(context, request, reply);
    if (!('authorization' in checked)) return checked;
    const answered = await answerPasskeyPrompt(context, request, reply, checked.authorization, checked.form);
    if ('reply' in answered) return answered.reply;
    const outcome = await decide({ db: context.deps.db, dialect: context.deps.handle.dialect }, checked.authorization, answered.session, { fresh: answered.fresh });
    return sendOutcome(context, request, reply, checked.authorization, outcome);
}

/**
 * The passkey forms of the sign-in pages (API.md §8): the options a page's
 * script asks for, the discoverable sign-in, and the offer to add a passkey after a password.
 * The second factor's passkey posts to `/authorize/second-factor` (and `/device/second-factor`).
 */
export function registerPasskeyFormRoutes(scope: FastifyInstance, context: BrowserContext): void {
    scope.post('/authorize/passkey-options', contract({
        auth: 'none', tags: ['oauth2'], summary: 'The options of a passkey ceremony of the sign-in pages (WebAuthn)',
        description: 'The page\'s form fields (CSRF token; for `sign-in` the authorization request) and `ceremony`: `sign-in` (a discoverable credential of the '
            + 'request\'s realm), `second-factor` (the pending sign-in\'s user, its cookie), `registration` (the browser session signed in within five minutes). '
            + 'Each answer carries a fresh single-use challenge of five minutes. 403 access_denied while the realm\'s `passkeysEnabled` is false.',
        consumes: FORM, body: Type.Unknown({ description: 'The page\'s form fields and `ceremony`.' }),
        response: { 200: Type.Object({ options: Type.Object({ challenge: Type.String() }, { additionalProperties: true }) }, { description: 'PublicKeyCredentialRequestOptionsJSON or PublicKeyCredentialCreationOptionsJSON.' }) },
        errors: [401, 403],
    }), (request, reply) => passkeyOptions(context, request, reply));
    scope.post('/authorize/passkey', contract({
        auth: 'none', tags: ['oauth2'], summary: 'Sign in with a passkey (the button or autofill of the sign-in page)',
        description: '`passkey_response` (the AuthenticationResponseJSON of a discoverable credential), the CSRF token and the authorization request carried in hidden fields. '
            + 'A passkey proves possession and user verification: it satisfies the realm\'s multi-factor requirement. A failure counts as a failed authentication.',
        consumes: FORM, body: Type.Unknown({ description: 'The passkey form.' }),
        response: { 200: PAGE, 303: REDIRECT }, errors: [401, 403],
    }), (request, reply) => signInForm(context, request, reply, passkeyStep));
    scope.post('/authorize/passkey-prompt', contract({
        auth: 'none', tags: ['oauth2'], summary: 'The answer to "Add a passkey to sign in faster" after a password sign-in',
        description: '`skip`, or `passkey_response` (a RegistrationResponseJSON to the `registration` options), with the CSRF token, `session_id` and the '
            + 'authorization request in hidden fields; then the flow goes on (consent, or the code).',
        consumes: FORM, body: Type.Unknown({ description: 'The offer\'s form.' }),
        response: { 200: PAGE, 303: REDIRECT }, errors: [403],
    }), (request, reply) => passkeyPrompt(context, request, reply));
}
