import type { Hono, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { refuse } from '../api/respond.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { addLocalGate } from '../local.ts'
import { messageView } from '../views.ts'
import { hostGate } from './host-gate.ts'

/** The studio's CSP: its own scripts and styles only, nothing inline or eval'd; framed only by itself. */
export const studioCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ')

const publicPaths = ['/studio/sign-in', '/studio/sign-out', '/studio/forgot-password', '/studio/pages.css']

function isPublic(pathname: string, method: string): boolean {
  return (
    publicPaths.includes(pathname) ||
    (pathname === '/studio/api/session' && method === 'POST') ||
    pathname.startsWith('/studio/invite/') ||
    pathname.startsWith('/studio/assets/') ||
    pathname.startsWith('/studio/preview/') ||
    pathname.startsWith('/studio/api/preview/')
  )
}

/** Every answer: the strict CSP (unless the route set its own), nosniff, noindex, no-store by default. */
const securityHeaders: MiddlewareHandler<StudioEnv> = async (c, next) => {
  await next()
  const headers = c.res.headers
  if (!headers.has('content-security-policy')) headers.set('content-security-policy', studioCsp)
  headers.set('x-content-type-options', 'nosniff')
  // Not no-referrer: under it Chromium sends `Origin: null` with a form's POST, and the Origin check below refuses
  // every sign-in. same-origin keeps the studio's addresses from other sites all the same.
  headers.set('referrer-policy', 'same-origin')
  headers.set('x-robots-tag', 'noindex, nofollow')
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store')
  if (c.res.status === 413) headers.set('connection', 'close')
}

/** Off until the first account exists: nothing of the studio is there to probe. (Local mode has no accounts.) */
function offUntilFirstAccount(ctx: StudioContext): MiddlewareHandler<StudioEnv> {
  return async (c, next) => {
    if (!ctx.local && (await ctx.store.countAccounts()) === 0) return c.text('Not Found', 404)
    await next()
  }
}

/** CSRF: browsers send Origin on every POST, PUT and DELETE; only this origin's pages may change anything. */
function sameOriginWrites(ctx: StudioContext): MiddlewareHandler<StudioEnv> {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const origin = c.req.header('origin')
    // This request's own origin (its host passed the host gate), or the studio's links' (a proxy may pass another Host
    // on).
    if (!origin || (origin !== ctx.originOf(c) && origin !== new URL(ctx.linkBase(c)).origin)) {
      const text = "This request did not come from the studio's own pages. Open the studio and try again."
      return c.req.path.startsWith('/studio/api/')
        ? refuse(c, 403, text)
        : c.html(messageView('Not allowed', text, { href: '/studio/', label: 'Open the studio' }), 403)
    }
    return next()
  }
}

/** Everything not public needs a live session: the API answers 401, pages send the person to sign in. */
function signedInOnly(ctx: StudioContext): MiddlewareHandler<StudioEnv> {
  return async (c, next) => {
    if (isPublic(c.req.path, c.req.method)) return next()
    const session = await ctx.sessionOf(c)
    if (!session) {
      return c.req.path.startsWith('/studio/api/')
        ? refuse(c, 401, 'You are not signed in (or your session has ended). Sign in again.')
        : c.redirect('/studio/sign-in', 303)
    }
    c.set('account', session.account)
    c.set('sessionHash', session.sessionHash)
    return next()
  }
}

/** The gates every studio request passes, in order, before any route. */
export function addStudioGates(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.use('*', securityHeaders)
  if (!ctx.local) app.use('*', hostGate(ctx.address))
  app.use('*', offUntilFirstAccount(ctx))
  app.use('*', sameOriginWrites(ctx))
  const formLimit = bodyLimit({ maxSize: 8 * 1024, onError: (c) => c.text('That form is too large.', 413) })
  app.post('/sign-in', formLimit)
  app.post('/api/session', formLimit)
  app.post('/invite/*', formLimit)
  app.post('/forgot-password', formLimit)
  // Local mode: its own paths only, the API bound to the page's token, and no one signs in.
  if (ctx.local) addLocalGate(app, ctx)
  else app.use('*', signedInOnly(ctx))
}
