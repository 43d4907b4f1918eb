import { logValue } from '../../../../schema/log-value.ts'
import type { Context, Hono } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import type { StudioContext, StudioEnv } from '../context.ts'
import { clearSessionCookie, deviceCookie, homeOf } from '../context.ts'
import { decoyHash, verifyPassword } from '../passwords.ts'
import { normalizeEmail } from '../store.ts'
import { signInView } from '../views.ts'
import { totpStepOf } from './totp.ts'
import { field, startSession } from './session.ts'

/** How a sign-in attempt ended. */
type SignInOutcome =
  | { kind: 'ok'; email: string; home: string }
  | { kind: 'limited'; email: string; retryAfterSeconds: number }
  | { kind: 'wrong' | 'code needed' | 'wrong code'; email: string }

const outcomeText: Record<Exclude<SignInOutcome['kind'], 'ok'>, string> = {
  limited: 'Too many sign-in attempts. Please wait a minute and try again.',
  wrong: 'That e-mail address and password do not match. Please try again.',
  'code needed': 'Enter your password again with the code from your authenticator app.',
  'wrong code': 'That code is not right (it changes every 30 seconds). Please try again.',
}

/** Leaves the device cookie: this browser signed in to an account lately (the limiter's exemption). */
export function setDeviceCookie(
  ctx: StudioContext,
  c: Context,
  device: { token: string; maxAgeSeconds: number },
): void {
  setCookie(c, deviceCookie, device.token, {
    path: '/studio',
    httpOnly: true,
    sameSite: 'Strict',
    secure: ctx.secureCookies,
    maxAge: device.maxAgeSeconds,
  })
}

/** Failures of one account within a minute answered at once; each one after that waits twice as long, up to 2 s. */
const freeFailures = 3
const maxDelayMs = 2_000

/**
 * Answers an account under attack with growing delays before the limiter's hard stop: the 4th wrong password in a
 * minute waits 250 ms, the 5th 500 ms, then 1 s and 2 s (a browser that signed in before is never kept waiting).
 */
async function slowDown(ctx: StudioContext, email: string): Promise<void> {
  const since = new Date(ctx.clock().getTime() - 60_000)
  const [count] = await ctx.signInCounts.countSignInFailures([`account:${email}`], since)
  const beyond = (count?.failures ?? 0) - freeFailures
  if (beyond <= 0) return
  await new Promise((resolve) => setTimeout(resolve, Math.min(maxDelayMs, 250 * 2 ** (beyond - 1))))
}

/**
 * Checks a sign-in's second factor: wrong codes have a budget of their own (a right password does not buy more
 * guesses), and each time-step signs in once, so a code seen over a shoulder or replayed from a log is spent.
 */
async function refuseCode(
  ctx: StudioContext,
  codeAttempt: { address: string; account: string; device?: string | undefined },
  account: { id: number; totpSecret?: string | undefined },
  code: string,
): Promise<{ kind: 'limited'; retryAfterSeconds: number } | { kind: 'wrong code' } | undefined> {
  const verdict = await ctx.limiter.check(codeAttempt)
  if (!verdict.allowed) return { kind: 'limited', retryAfterSeconds: verdict.retryAfterSeconds }
  const step = totpStepOf(account.totpSecret ?? '', code, ctx.clock())
  if (step !== undefined && (await ctx.store.useTotpStep(account.id, step))) return undefined
  await ctx.limiter.recordFailure(codeAttempt)
  ctx.log.info(
    `studio: sign-in failed from ${logValue(codeAttempt.address)}: ${step === undefined ? 'wrong' : 'used'} code`,
  )
  return { kind: 'wrong code' }
}

/** One sign-in attempt, limited; on success the session and device cookies are set. */
async function attemptSignIn(ctx: StudioContext, c: Context, typed: Record<string, unknown>): Promise<SignInOutcome> {
  const email = normalizeEmail(field(typed, 'email')).slice(0, 320)
  const code = field(typed, 'code').trim()
  const address = ctx.clientAddress(c)
  const attempt = { address, account: email, device: getCookie(c, deviceCookie) }
  // The limiter logs each refusal itself.
  const verdict = await ctx.limiter.check(attempt)
  if (!verdict.allowed) return { kind: 'limited', email, retryAfterSeconds: verdict.retryAfterSeconds }
  const account = email ? await ctx.store.findAccountByEmail(email) : undefined
  const password = field(typed, 'password').slice(0, 1024)
  const passwordOk = await verifyPassword(password, account?.passwordHash ?? (await decoyHash(ctx.passwordCost)))
  if (!account?.passwordHash || !passwordOk) {
    await ctx.limiter.recordFailure(attempt)
    if (!verdict.knownDevice) await slowDown(ctx, email)
    ctx.log.info(`studio: sign-in failed from ${logValue(address)}`)
    return { kind: 'wrong', email }
  }
  if (account.totpSecret) {
    if (!code) return { kind: 'code needed', email }
    const refused = await refuseCode(ctx, { ...attempt, account: `code:${email}` }, account, code)
    if (refused) return { ...refused, email }
  }
  await startSession(ctx, c, account)
  setDeviceCookie(ctx, c, await ctx.limiter.recordSuccess(attempt))
  await ctx.audit(account.email, 'sign-in')
  return { kind: 'ok', email, home: homeOf(account) }
}

/** The sign-in page and its form (no JavaScript needed). */
function addSignInPage(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/sign-in', async (c) => {
    const session = await ctx.sessionOf(c)
    if (session) return c.redirect(homeOf(session.account), 303)
    return c.html(signInView({ forgotLink: ctx.sendMail !== undefined }))
  })

  app.post('/sign-in', async (c) => {
    const outcome = await attemptSignIn(ctx, c, await c.req.parseBody())
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
}

/** The same sign-in for the studio's page when it runs (JSON; the cookies are the same), and signing out. */
function addSessionApi(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.post('/api/session', async (c) => {
    let body: Record<string, unknown> = {}
    try {
      body = (await c.req.json<Record<string, unknown> | null>()) ?? {}
    } catch {
      // An empty or broken body is a wrong sign-in like any other.
    }
    const outcome = await attemptSignIn(ctx, c, body)
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
}

/** Sign-in (page and JSON) and sign-out. */
export function addSignInRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  addSignInPage(app, ctx)
  addSessionApi(app, ctx)
  app.post('/sign-out', async (c) => {
    const session = await ctx.sessionOf(c)
    if (session) {
      await ctx.store.endSession(session.sessionHash)
      await ctx.audit(session.account.email, 'sign-out')
    }
    clearSessionCookie(c, ctx)
    return c.html(signInView({ notice: { kind: 'info', text: 'You are signed out.' } }))
  })
}
