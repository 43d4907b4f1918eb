import { logValue } from '../../../../schema/log-value.ts'
import type { Context, Hono } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { LeadsContext } from '../context.ts'
import { emptyFilter } from '../sessions.ts'
import { sessionCookie } from '../viewers.ts'
import { signInView, type SignInWays } from '../views.ts'
import { isHttps } from './guards.ts'

/**
 * Signing in with the team's shared password (POST /leads/sign-in: the sign-in limits, then a session kept
 * server-side and a device cookie) and signing out (POST /leads/sign-out: every session the browser holds here).
 */

/**
 * The device cookie: a client that signed in here in the last 30 days is exempt from the account and network budgets.
 */
const deviceCookie = 'leads_device'
/** The one account the leads page has: the team's shared password. */
const account = 'leads-page'

/** How a person may sign in now: the shared password (when set), the studio (when it has accounts). */
export async function signInWays(ctx: Pick<LeadsContext, 'studio' | 'checkPassword'>): Promise<SignInWays> {
  const studio = ctx.studio && (await ctx.studio.hasAccounts()) ? ctx.studio.signInPath : undefined
  return { password: ctx.checkPassword !== undefined, studio }
}

/** The answer to someone not signed in: the sign-in form, or (no shared password) the studio's sign-in. */
export async function signInAnswer(c: Context, ctx: LeadsContext): Promise<Response> {
  const ways = await signInWays(ctx)
  if (!ways.password && ways.studio) return c.redirect(ways.studio, 303)
  return c.html(signInView(ctx.view, ways))
}

/** Signs in with the shared password, within the sign-in limits. */
async function signIn(c: Context, ctx: LeadsContext): Promise<Response> {
  if (!ctx.checkPassword) return c.redirect('/leads', 303)
  const attempt = { address: ctx.clientIp(c), account, device: getCookie(c, deviceCookie) }
  const verdict = await ctx.limiter.check(attempt)
  if (!verdict.allowed) {
    return c.text('Too many sign-in attempts. Please wait a minute and try again.', 429, {
      'retry-after': String(verdict.retryAfterSeconds),
    })
  }
  const body = await c.req.parseBody()
  const typed = typeof body.password === 'string' ? body.password : ''
  if (!ctx.checkPassword(typed)) {
    await ctx.limiter.recordFailure(attempt)
    ctx.log.info(`leads page: sign-in refused, wrong password (client ${logValue(attempt.address)})`)
    const notice = { kind: 'error', text: 'That password is not right. Please try again.' } as const
    return c.html(signInView(ctx.view, await signInWays(ctx), notice), 401)
  }
  const device = await ctx.limiter.recordSuccess(attempt)
  const cookie = { path: '/leads', httpOnly: true, sameSite: 'Strict', secure: isHttps(c, ctx.trustProxy) } as const
  setCookie(c, deviceCookie, device.token, { ...cookie, maxAge: device.maxAgeSeconds })
  const token = await ctx.sessions.create(ctx.clock(), ctx.sessionMs)
  setCookie(c, sessionCookie, token, { ...cookie, maxAge: Math.floor(ctx.sessionMs / 1000) })
  ctx.log.info('leads page: signed in')
  return c.redirect('/leads', 303)
}

/** Adds signing in and out to the leads page's app. */
export function addSignInRoutes(app: Hono, ctx: LeadsContext): void {
  app.post('/leads/sign-in', (c) => signIn(c, ctx))

  // Ends whichever sessions the browser holds here: the shared password's and the studio account's.
  app.post('/leads/sign-out', async (c) => {
    const token = getCookie(c, sessionCookie)
    if (token) await ctx.sessions.end(token)
    deleteCookie(c, sessionCookie, {
      path: '/leads',
      httpOnly: true,
      sameSite: 'Strict',
      secure: isHttps(c, ctx.trustProxy),
    })
    const viewer = ctx.studio ? await ctx.viewerOf(c) : undefined
    if (viewer?.account) {
      // The search typed (perhaps a name) goes with the session.
      await viewer.saveFilter({ ...emptyFilter })
      await ctx.studio!.signOut(c)
    }
    return c.html(signInView(ctx.view, await signInWays(ctx), { kind: 'info', text: 'You are signed out.' }))
  })
}
