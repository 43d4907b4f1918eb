import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { LeadsContext } from '../context.ts'

/**
 * What every request to the leads page passes first: no cache and no index on any answer, a POST only from a page of
 * this origin (CSRF: the session cookie is SameSite=Strict too), and a body no larger than its form needs.
 */

/** Whether the visitor's connection is HTTPS: the request itself, or the trusted proxy's X-Forwarded-Proto. */
export function isHttps(c: Context, trustProxy: number): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true
  return trustProxy > 0 && c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https'
}

/** A POST from a page of this origin: browsers send Origin on every form POST, so none means not ours. */
export function fromThisOrigin(c: Context, trustProxy: number): boolean {
  const origin = c.req.header('origin')
  const host = trustProxy > 0 ? (c.req.header('x-forwarded-host') ?? c.req.header('host')) : c.req.header('host')
  if (!origin || !host || !URL.canParse(origin)) return false
  const url = new URL(origin)
  return url.host === host && url.protocol === (isHttps(c, trustProxy) ? 'https:' : 'http:')
}

/** Adds the guards to the leads page's app: before every route. */
export function addGuards(app: Hono, ctx: Pick<LeadsContext, 'trustProxy'>): void {
  // '/leads/*' matches /leads itself too.
  app.use('/leads/*', async (c, next) => {
    await next()
    c.res.headers.set('cache-control', 'no-store')
    c.res.headers.set('x-robots-tag', 'noindex, nofollow')
  })

  // Refuse cross-site POSTs before anything else reads the body or the session; a form here is a few hundred bytes.
  app.post('/leads/*', async (c, next) => {
    if (!fromThisOrigin(c, ctx.trustProxy))
      return c.text('This form can only be sent from the leads page itself. Open /leads and try again.', 403)
    await next()
  })
  // A note may be 1,000 characters of any script: up to 12 bytes each once form-encoded.
  const smallForm = bodyLimit({ maxSize: 4096, onError: (c) => c.text('That form is too large.', 413) })
  const noteForm = bodyLimit({
    maxSize: 16_384,
    onError: (c) => c.text('That note is too long: keep it under 1,000 characters.', 413),
  })
  const announcementForm = bodyLimit({
    maxSize: 65_536,
    onError: (c) => c.text('That announcement is too long: keep it under 2,000 characters.', 413),
  })
  app.post('/leads/*', (c, next) => {
    const limit = c.req.path.endsWith('/note')
      ? noteForm
      : c.req.path === '/leads/announcements'
        ? announcementForm
        : smallForm
    return limit(c, next)
  })
}
