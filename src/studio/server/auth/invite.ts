import type { Context, Hono } from 'hono'
import type { StudioContext, StudioEnv } from '../context.ts'
import { homeOf } from '../context.ts'
import { hashPassword, minPasswordLength } from '../passwords.ts'
import { tokenHash } from '../tokens.ts'
import { choosePasswordView, messageView, signInView } from '../views.ts'
import { field, startSession } from './session.ts'
import { setDeviceCookie } from './sign-in.ts'

const deadLink = (c: Context) =>
  c.html(
    messageView(
      'This link does not work any more',
      'It has expired or was already used. Ask an owner of the studio for a new one.',
      { href: '/studio/sign-in', label: 'Sign in' },
    ),
    404,
  )

const secondFactorNotice = {
  kind: 'info' as const,
  text: 'Your new password is set. Sign in with it and the code from your authenticator app.',
}

/** What is wrong with a chosen password and its confirmation; undefined when nothing is. */
function passwordProblem(password: string, confirm: string): string | undefined {
  if ([...password].length < minPasswordLength) return `The password needs at least ${minPasswordLength} characters.`
  if (password.length > 1024) return 'The password is too long (1,024 characters at most).'
  if (password !== confirm) return 'The two passwords are not the same. Please type them again.'
  return undefined
}

/** /studio/invite/:token: choosing a password from a one-time link (an invitation or a reset). */
export function addInviteRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/invite/:token', async (c) => {
    const link = await ctx.store.findLink(tokenHash(c.req.param('token')), ctx.clock())
    const account = link && (await ctx.store.findAccount(link.accountId))
    if (!link || !account) return deadLink(c)
    return c.html(choosePasswordView(c.req.param('token'), account.email))
  })

  app.post('/invite/:token', async (c) => {
    const token = c.req.param('token')
    const hash = tokenHash(token)
    const now = ctx.clock()
    const link = await ctx.store.findLink(hash, now)
    const account = link && (await ctx.store.findAccount(link.accountId))
    if (!link || !account) return deadLink(c)
    const body = await c.req.parseBody()
    const password = field(body, 'password')
    const problem = passwordProblem(password, field(body, 'confirm'))
    if (problem) return c.html(choosePasswordView(token, account.email, { kind: 'error', text: problem }), 400)
    const passwordHash = await hashPassword(password, ctx.passwordCost)
    // Only the first of two requests racing on one link gets past here.
    if (!(await ctx.store.useLink(hash, now))) return deadLink(c)
    await ctx.store.setPassword(account.id, passwordHash, now)
    await ctx.audit(account.email, link.purpose === 'invite' ? 'accepted invitation' : 'reset password')
    // The link proves the mailbox: this browser is the person's, exempt from the budgets an attacker spends.
    const attempt = { address: ctx.clientAddress(c), account: account.email }
    setDeviceCookie(ctx, c, await ctx.limiter.recordSuccess(attempt))
    // A link is one factor: with two-factor on, no session exists until a current code is given at sign-in.
    if (account.totpSecret) return c.html(signInView({ email: account.email, code: true, notice: secondFactorNotice }))
    await startSession(ctx, c, account)
    return c.redirect(homeOf(account), 303)
  })
}
