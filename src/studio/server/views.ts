import { escapeHtml } from '../../server/delivery/escape-html.ts'
import { minPasswordLength } from './passwords.ts'

/**
 * The studio's pages that work without JavaScript: sign in, choose a password (an invitation or a reset link), ask
 * for a reset link, and short notices. Plain HTML forms; the stylesheet is /studio/pages.css (the CSP allows no
 * inline style or script).
 */

/** A line above a form: an error (role=alert) or a notice. */
export type Notice = { kind: 'error' | 'info'; text: string }

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)} · Studio</title>
<link rel="stylesheet" href="/studio/pages.css">
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`
}

function noticeHtml(notice: Notice | undefined): string {
  if (!notice) return ''
  return notice.kind === 'error'
    ? `<p class="notice error" role="alert">${escapeHtml(notice.text)}</p>`
    : `<p class="notice" role="status">${escapeHtml(notice.text)}</p>`
}

/** The sign-in form; with `code`, the two-factor code field too (the account has TOTP on). */
export function signInView(
  options: { notice?: Notice; email?: string; code?: boolean; forgotLink?: boolean } = {},
): string {
  const code = options.code
    ? `<label for="code">Code</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required>
<p class="hint">The 6-digit code your authenticator app shows for this studio.</p>`
    : ''
  return page(
    'Sign in',
    `${noticeHtml(options.notice)}
<form method="post" action="/studio/sign-in">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(options.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
${code}
<button type="submit">Sign in</button>
</form>
${options.forgotLink ? '<p><a href="/studio/forgot-password">Forgot your password?</a></p>' : ''}`,
  )
}

/** Choose a password, from an invitation or a reset link. */
export function choosePasswordView(token: string, email: string, notice?: Notice): string {
  return page(
    'Choose a password',
    `${noticeHtml(notice)}
<p>For <strong>${escapeHtml(email)}</strong>. At least ${minPasswordLength} characters; a short sentence is easy to remember and hard to guess.</p>
<form method="post" action="/studio/invite/${encodeURIComponent(token)}">
<input type="hidden" name="email" autocomplete="username" value="${escapeHtml(email)}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${minPasswordLength}" required>
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="${minPasswordLength}" required>
<button type="submit">Save password</button>
</form>`,
  )
}

/** Ask for a reset link by e-mail (only when mail is configured). */
export function forgotView(notice?: Notice): string {
  return page(
    'Forgot your password?',
    `${noticeHtml(notice)}
<form method="post" action="/studio/forgot-password">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required>
<button type="submit">Send me a link</button>
</form>
<p><a href="/studio/sign-in">Back to sign in</a></p>`,
  )
}

/** A page with one sentence and a way on. */
export function messageView(title: string, text: string, link?: { href: string; label: string }): string {
  return page(
    title,
    `<p>${escapeHtml(text)}</p>${link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : ''}`,
  )
}

/** The pages' stylesheet, served at /studio/pages.css. */
export const pagesCss = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f5f5f4; color: #1c1917; }
main { max-width: 26rem; margin: 4rem auto; padding: 2rem; background: #fff; border-radius: 0.5rem; box-shadow: 0 1px 3px #0002; }
h1 { font-size: 1.5rem; margin-top: 0; }
label { display: block; font-weight: 600; margin-top: 1rem; }
input { box-sizing: border-box; width: 100%; padding: 0.6rem; font: inherit; border: 1px solid #a8a29e; border-radius: 0.3rem; }
button { margin-top: 1.5rem; padding: 0.6rem 1.2rem; font: inherit; font-weight: 600; color: #fff; background: #1d4ed8; border: 0; border-radius: 0.3rem; cursor: pointer; }
.notice { padding: 0.6rem; border-radius: 0.3rem; background: #e0f2fe; }
.notice.error { background: #fee2e2; color: #7f1d1d; }
.hint { font-size: 0.875rem; color: #57534e; margin: 0.25rem 0 0; }
`
