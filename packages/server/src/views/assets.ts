/**
 * The stylesheet of the auth pages, served at /assets/auth.css (the pages carry no inline style).
 * A branded realm's primary colour and the text colour on it come as the custom properties
 * `--rg-primary` and `--rg-on-primary` of its own stylesheet (views/branding.ts); without them the default blue.
 */
export const STYLESHEET = `*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;color:#111827;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.card{width:100%;max-width:24rem;margin:1rem;padding:2rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}
.logo{display:block;max-width:100%;max-height:4rem;margin:0 0 .75rem}
.realm{margin:0 0 1rem;color:#6b7280;font-size:.875rem;text-transform:uppercase;letter-spacing:.05em}
h1{margin:0 0 .5rem;font-size:1.375rem}
.subtitle{margin:0 0 1.5rem;color:#4b5563}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=text],input[type=password]{width:100%;padding:.5rem .75rem;border:1px solid #9ca3af;border-radius:.375rem;font:inherit}
input:focus,button:focus{outline:2px solid #2563eb;outline-offset:2px}
button{margin-top:1.5rem;padding:.5rem 1rem;border:0;border-radius:.375rem;background:var(--rg-primary,#1d4ed8);color:var(--rg-on-primary,#fff);font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:#e5e7eb;color:#111827}
.actions{display:flex;gap:.75rem;justify-content:flex-end}
.error{padding:.5rem .75rem;border-radius:.375rem;background:#fef2f2;color:#991b1b}
.scopes{padding-left:1.25rem}
details{margin-top:1rem}
summary{cursor:pointer;color:#1d4ed8}
.links{margin:1rem 0 0}
a{color:#1d4ed8}
.user-code{font:600 1.25rem/1.5 ui-monospace,monospace;letter-spacing:.1em}
code{font-size:.875em;color:#374151}
form.passkey{margin-top:.5rem}
[hidden]{display:none !important}
`;

/** Submits the form_post page's form once loaded (OAuth 2.0 Form Post Response Mode §2). */
export const FORM_POST_SCRIPT = `document.getElementById('form-post')?.submit();\n`;

/**
 * The passkey ceremonies of the auth pages (views/passkey-pages.ts), on @simplewebauthn/browser
 * (served as /assets/webauthn-browser.js, its global `SimpleWebAuthnBrowser`). Each form marked
 * `data-passkey` posts its own fields with `ceremony` to its options URL, runs the ceremony, puts the
 * answer in `passkey_response` and submits. Passkey autofill (WebAuthn §5.1.4.1 conditional
 * mediation) starts on load where the browser offers it; pressing the button aborts it (the library
 * allows one ceremony at a time) and starts a modal one with fresh options.
 */
export const PASSKEY_SCRIPT = `(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;
  if (!lib || !lib.browserSupportsWebAuthn()) return;
  // the password form tells the server whether a passkey could be made here (the offer after a password sign-in)
  lib.platformAuthenticatorIsAvailable().then(function (available) {
    if (available) document.querySelectorAll('input[data-passkey-capable]').forEach(function (input) { input.value = '1'; });
  });
  document.querySelectorAll('form[data-passkey]').forEach(function (form) {
    var ceremony = form.getAttribute('data-passkey');
    var button = form.querySelector('[data-passkey-start]');
    var field = form.querySelector('input[name="passkey_response"]');
    var message = form.querySelector('[data-passkey-error]');
    function fail(error) {
      if (error && error.name === 'AbortError') return;
      // the page's language: the message is rendered into the element (views/passkey-pages.ts)
      message.textContent = message.getAttribute('data-message');
      message.hidden = false;
    }
    function options() {
      var body = new URLSearchParams(new FormData(form));
      body.delete('passkey_response');
      body.set('ceremony', ceremony);
      return fetch(form.getAttribute('data-passkey-options'), { method: 'POST', body: body, credentials: 'same-origin' }).then(function (answer) {
        if (!answer.ok) return answer.json().then(function (error) { throw new Error(error.message || 'options'); });
        return answer.json();
      }).then(function (answer) { return answer.options; });
    }
    function run(autofill) {
      return options().then(function (optionsJSON) {
        return ceremony === 'registration' ?
          lib.startRegistration({ optionsJSON: optionsJSON }) :
          lib.startAuthentication({ optionsJSON: optionsJSON, useBrowserAutofill: autofill });
      }).then(function (response) {
        field.value = JSON.stringify(response);
        form.submit();
      });
    }
    if (button) {
      button.hidden = false;
      button.addEventListener('click', function () { message.hidden = true; run(false).catch(fail); });
    }
    if (form.hasAttribute('data-passkey-autofill')) {
      lib.browserSupportsWebAuthnAutofill().then(function (supported) {
        if (supported) run(true).catch(function () { /* aborted by the button, or dismissed */ });
      });
    }
  });
})();
`;
