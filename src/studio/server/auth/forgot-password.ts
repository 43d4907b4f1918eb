import type { Hono } from 'hono'
import type { StudioContext, StudioEnv } from '../context.ts'
import { createOneTimeLink, linkMail } from '../links.ts'
import { normalizeEmail } from '../store.ts'
import { forgotView, messageView } from '../views.ts'
import { field } from './session.ts'

/** At most this many reset links an hour for one account: a person's inbox is not a target. */
const resetLinksPerHour = 3

/**
 * Mails a reset link to the account of `email`, if there is one and it had fewer than three this hour; nothing is
 * said either way. The new link voids the account's older ones (store's createLink).
 */
async function mailResetLink(ctx: StudioContext, email: string, base: string): Promise<void> {
  const account = email ? await ctx.store.findAccountByEmail(email) : undefined
  if (!account || !ctx.sendMail) return
  const now = ctx.clock()
  const hourAgo = new Date(now.getTime() - 60 * 60 * 1000)
  if ((await ctx.store.countLinksSince(account.id, 'reset', hourAgo)) >= resetLinksPerHour) {
    ctx.log.info('studio: a reset link was asked for an account that had three this hour: none sent')
    return
  }
  const { link } = await createOneTimeLink(ctx.store, account.id, 'reset', now, base)
  await ctx.sendMail(linkMail(account.email, 'reset', link))
  await ctx.audit(account.email, 'reset link e-mailed')
}

/** /studio/forgot-password: asking for a reset link by e-mail (only when mail is set up). */
export function addForgotPasswordRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/forgot-password', (c) => {
    if (!ctx.sendMail)
      return c.html(
        messageView('Forgot your password?', 'Ask an owner of the studio for a new sign-in link.', {
          href: '/studio/sign-in',
          label: 'Back to sign in',
        }),
      )
    return c.html(forgotView())
  })

  app.post('/forgot-password', async (c) => {
    if (!ctx.sendMail)
      return c.html(messageView('Forgot your password?', 'Ask an owner of the studio for a new sign-in link.'), 404)
    const email = normalizeEmail(field(await c.req.parseBody(), 'email')).slice(0, 320)
    // Counted under its own account key, so asking for links cannot lock the account's sign-in out.
    const attempt = { address: ctx.clientAddress(c), account: `reset:${email}` }
    const verdict = await ctx.limiter.check(attempt)
    if (!verdict.allowed)
      return c.html(
        forgotView({ kind: 'error', text: 'Too many requests. Please wait a minute and try again.' }),
        429,
        { 'retry-after': String(verdict.retryAfterSeconds) },
      )
    await ctx.limiter.recordFailure(attempt)
    // Sent after the answer, so the answer takes as long for an address with an account as for one without.
    mailResetLink(ctx, email, ctx.linkBase(c)).catch((error: unknown) =>
      ctx.log.error('studio: the reset link could not be e-mailed', error),
    )
    // The same answer either way: the page does not tell who has an account.
    return c.html(
      forgotView({
        kind: 'info',
        text: 'If that address has an account, a link to choose a new password is on its way.',
      }),
    )
  })
}
