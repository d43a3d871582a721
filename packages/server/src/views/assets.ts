/** The stylesheet of the auth pages, served at /assets/auth.css (the pages carry no inline style). */
export const STYLESHEET = `*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;color:#111827;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.card{width:100%;max-width:24rem;margin:1rem;padding:2rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}
.realm{margin:0 0 1rem;color:#6b7280;font-size:.875rem;text-transform:uppercase;letter-spacing:.05em}
h1{margin:0 0 .5rem;font-size:1.375rem}
.subtitle{margin:0 0 1.5rem;color:#4b5563}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=text],input[type=password]{width:100%;padding:.5rem .75rem;border:1px solid #9ca3af;border-radius:.375rem;font:inherit}
input:focus,button:focus{outline:2px solid #2563eb;outline-offset:2px}
button{margin-top:1.5rem;padding:.5rem 1rem;border:0;border-radius:.375rem;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;cursor:pointer}
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
`;

/** Submits the form_post page's form once loaded (OAuth 2.0 Form Post Response Mode §2). */
export const FORM_POST_SCRIPT = `document.getElementById('form-post')?.submit();\n`;
