import type { Context, Hono } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import * as OTPAuth from 'otpauth'
import type { StudioContext, StudioEnv } from './context.ts'
import { clearSessionCookie, deviceCookie, homeOf, setSessionCookie } from './context.ts'
import { createOneTimeLink, linkMail } from './links.ts'
import { decoyHash, hashPassword, minPasswordLength, verifyPassword } from './passwords.ts'
import { normalizeEmail, type Account } from './store.ts'
import { newToken, tokenHash } from './tokens.ts'
import { choosePasswordView, forgotView, messageView, signInView } from './views.ts'

/**
 * Signing in and out, choosing a password from a one-time link, and asking for a reset link: server-rendered pages
 * that work without JavaScript. Sign-in is limited by the shared limiter (src/server/registration/sign-in-limits.ts);
 * a successful one leaves a device cookie that exempts this browser from the per-account and /48 budgets for 30 days.
 */

/** A TOTP for a secret, as authenticator apps compute it (SHA-1, 6 digits, 30 s). */
export function totpOf(secret: string, label = 'studio'): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: 'Studio',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secret),
  })
}

/** Whether `code` is the secret's current code (one step either side, for clocks a little apart). */
export function checkTotp(secret: string, code: string, now: Date): boolean {
  return /^\d{6}$/.test(code) && totpOf(secret).validate({ token: code, timestamp: now.getTime(), window: 1 }) !== null
}

/** Starts a session for an account and sets its cookie. */
export async function startSession(ctx: StudioContext, c: Context, account: Account): Promise<void> {
  const id = newToken()
  const now = ctx.clock()
  await ctx.store.createSession(tokenHash(id), account.id, now, new Date(now.getTime() + ctx.sessionMs))
  setSessionCookie(c, ctx, id)
}

/** How a sign-in attempt ended. */
type SignInOutcome =
  | { kind: 'ok'; email: string; home: string }
  | { kind: 'limited'; email: string; retryAfterSeconds: number }
  | { kind: 'wrong' | 'code needed' | 'wrong code'; email: string }

function field(body: Record<string, unknown>, name: string): string {
  const value = body[name]
  return typeof value === 'string' ? value : ''
}

/** Adds the pages: /studio/sign-in, /studio/sign-out, /studio/invite/:token, /studio/forgot-password. */
export function addAuthPages(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/sign-in', async (c) => {
    const session = await ctx.sessionOf(c)
    if (session) return c.redirect(homeOf(session.account), 303)
    return c.html(signInView({ forgotLink: ctx.sendMail !== undefined }))
  })

  /** One sign-in attempt, limited; on success the session and device cookies are set. */
  async function attemptSignIn(c: Context, typedEmail: string, password: string, code: string): Promise<SignInOutcome> {
    const email = normalizeEmail(typedEmail).slice(0, 320)
    const address = ctx.clientAddress(c)
    const attempt = { address, account: email, device: getCookie(c, deviceCookie) }
    const now = ctx.clock()
    // The limiter logs each refusal itself.
    const verdict = await ctx.limiter.check(attempt)
    if (!verdict.allowed) return { kind: 'limited', email, retryAfterSeconds: verdict.retryAfterSeconds }
    const account = email ? await ctx.store.findAccountByEmail(email) : undefined
    const passwordOk = await verifyPassword(
      password.slice(0, 1024),
      account?.passwordHash ?? (await decoyHash(ctx.passwordCost)),
    )
    if (!account?.passwordHash || !passwordOk) {
      await ctx.limiter.recordFailure(attempt)
      ctx.log.info(`studio: sign-in failed from ${address}`)
      return { kind: 'wrong', email }
    }
    if (account.totpSecret) {
      if (!code.trim()) return { kind: 'code needed', email }
      if (!checkTotp(account.totpSecret, code.trim(), now)) {
        await ctx.limiter.recordFailure(attempt)
        ctx.log.info(`studio: sign-in failed from ${address}: wrong code`)
        return { kind: 'wrong code', email }
      }
    }
    await startSession(ctx, c, account)
    const device = await ctx.limiter.recordSuccess(attempt)
    setCookie(c, deviceCookie, device.token, {
      path: '/studio',
      httpOnly: true,
      sameSite: 'Strict',
      secure: ctx.secureCookies,
      maxAge: device.maxAgeSeconds,
    })
    await ctx.audit(account.email, 'sign-in')
    return { kind: 'ok', email, home: homeOf(account) }
  }
  const outcomeText: Record<Exclude<SignInOutcome['kind'], 'ok'>, string> = {
    limited: 'Too many sign-in attempts. Please wait a minute and try again.',
    wrong: 'That e-mail address and password do not match. Please try again.',
    'code needed': 'Enter your password again with the code from your authenticator app.',
    'wrong code': 'That code is not right (it changes every 30 seconds). Please try again.',
  }

  app.post('/sign-in', async (c) => {
    const body = await c.req.parseBody()
    const outcome = await attemptSignIn(c, field(body, 'email'), field(body, 'password'), field(body, 'code'))
    if (outcome.kind === 'ok') return c.redirect(outcome.home, 303)
    const code = outcome.kind === 'code needed' || outcome.kind === 'wrong code'
    const view = signInView({
      email: outcome.email,
      code,
      forgotLink: ctx.sendMail !== undefined,
      notice: { kind: outcome.kind === 'code needed' ? 'info' : 'error', text: outcomeText[outcome.kind] },
    })
    return outcome.kind === 'limited'
      ? c.html(view, 429, { 'retry-after': String(outcome.retryAfterSeconds) })
      : c.html(view, 401)
  })

  // The same sign-in for the studio's page when it runs (JSON; the cookies are the same).
  app.post('/api/session', async (c) => {
    let body: Record<string, unknown> = {}
    try {
      body = ((await c.req.json()) as Record<string, unknown>) ?? {}
    } catch {
      // An empty or broken body is a wrong sign-in like any other.
    }
    const outcome = await attemptSignIn(c, field(body, 'email'), field(body, 'password'), field(body, 'code'))
    if (outcome.kind === 'ok') return c.json({ signedIn: true })
    const error = {
      error: outcomeText[outcome.kind],
      ...(outcome.kind === 'code needed' || outcome.kind === 'wrong code' ? { code: true } : {}),
    }
    return outcome.kind === 'limited'
      ? c.json(error, 429, { 'retry-after': String(outcome.retryAfterSeconds) })
      : c.json(error, 401)
  })
  app.delete('/api/session', async (c) => {
    await ctx.store.endSession(c.get('sessionHash'))
    await ctx.audit(c.get('account').email, 'sign-out')
    clearSessionCookie(c, ctx)
    return c.json({ signedIn: false })
  })

  app.post('/sign-out', async (c) => {
    const session = await ctx.sessionOf(c)
    if (session) {
      await ctx.store.endSession(session.sessionHash)
      await ctx.audit(session.account.email, 'sign-out')
    }
    clearSessionCookie(c, ctx)
    return c.html(signInView({ notice: { kind: 'info', text: 'You are signed out.' } }))
  })

  const deadLink = (c: Context) =>
    c.html(
      messageView(
        'This link does not work any more',
        'It has expired or was already used. Ask an owner of the studio for a new one.',
        { href: '/studio/sign-in', label: 'Sign in' },
      ),
      404,
    )

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
    const refuse = (text: string) => c.html(choosePasswordView(token, account.email, { kind: 'error', text }), 400)
    if ([...password].length < minPasswordLength)
      return refuse(`The password needs at least ${minPasswordLength} characters.`)
    if (password.length > 1024) return refuse('The password is too long (1,024 characters at most).')
    if (password !== field(body, 'confirm'))
      return refuse('The two passwords are not the same. Please type them again.')
    const passwordHash = await hashPassword(password, ctx.passwordCost)
    // Only the first of two requests racing on one link gets past here.
    if (!(await ctx.store.useLink(hash, now))) return deadLink(c)
    await ctx.store.setPassword(account.id, passwordHash, now)
    await ctx.audit(account.email, link.purpose === 'invite' ? 'accepted invitation' : 'reset password')
    await startSession(ctx, c, account)
    return c.redirect(homeOf(account), 303)
  })

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
    const now = ctx.clock()
    const verdict = await ctx.limiter.check(attempt)
    if (!verdict.allowed)
      return c.html(
        forgotView({ kind: 'error', text: 'Too many requests. Please wait a minute and try again.' }),
        429,
        { 'retry-after': String(verdict.retryAfterSeconds) },
      )
    await ctx.limiter.recordFailure(attempt)
    const account = email ? await ctx.store.findAccountByEmail(email) : undefined
    if (account) {
      const { link } = await createOneTimeLink(ctx.store, account.id, 'reset', now, ctx.linkBase(c))
      try {
        await ctx.sendMail(linkMail(account.email, 'reset', link))
        await ctx.audit(account.email, 'reset link e-mailed')
      } catch (error) {
        ctx.log.error('studio: the reset link could not be e-mailed', error)
      }
    }
    // The same answer either way: the page does not tell who has an account.
    return c.html(
      forgotView({
        kind: 'info',
        text: 'If that address has an account, a link to choose a new password is on its way.',
      }),
    )
  })
}
