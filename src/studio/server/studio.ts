import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { escapeHtml } from '../../server/delivery/escape-html.ts'
import { createSignInLimiter } from '../../server/registration/sign-in-limits.ts'
import { addApi, refuse } from './api.ts'
import { addAuthPages } from './auth.ts'
import { studioContextOf, type StudioContext, type StudioDeps, type StudioEnv } from './context.ts'
import { recordDiskVersions } from './launches.ts'
import { addNewLaunch } from './new-launch.ts'
import { leadsAccessOf, type StudioLeadsAccess } from './leads-sign-in.ts'
import { addLocalGate, withLocalToken } from './local.ts'
import { addPreview, previewTokenWorks } from './preview.ts'
import { messageView, pagesCss } from './views.ts'

/**
 * The studio at /studio: the hosted editor's server part. Off (404 for every path) until an account exists
 * (`npm run studio:invite`). Pages that work without JavaScript for signing in (auth.ts), the JSON API of
 * src/studio/protocol.ts (api.ts, preview.ts), and the browser part built into dist/_studio (index.html, the app;
 * preview.html, the preview frame's document; assets/). Every state-changing request must come from this origin
 * (Origin header); every answer has a strict CSP and noindex.
 */

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

/** What createStudio returns: the app to mount at the site's root (its routes start with /studio), and its start-up step. */
export type Studio = {
  app: Hono
  /** Records each launch's file as a version "from disk" when it differs from the last one (call once at start). */
  recordDiskVersions(): Promise<number>
  /** Its sign-in and audit log for the leads page at /leads (leads-sign-in.ts). */
  leads: StudioLeadsAccess
}

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

/** Builds the studio; hand it every request under /studio (`studio.app.fetch`), before the site's own handlers. */
export function createStudio(deps: StudioDeps): Studio {
  const limiter =
    deps.limiter ??
    createSignInLimiter({
      counts: deps.signInCounts,
      clock: deps.clock,
      log: { info: (m) => (deps.log ?? console).info(`studio: ${m}`) },
    })
  const ctx = studioContextOf(deps, limiter)
  // Not strict: /studio/ (the app) and /studio are one route; the shell sends the latter to the former.
  const app = new Hono<StudioEnv>({ strict: false }).basePath('/studio')

  app.use('*', async (c, next) => {
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
  })

  // Off until the first account exists: nothing of the studio is there to probe. (Local mode has no accounts.)
  app.use('*', async (c, next) => {
    if (!ctx.local && (await ctx.store.countAccounts()) === 0) return c.text('Not Found', 404)
    await next()
  })

  // CSRF: browsers send Origin on every POST, PUT and DELETE; only this origin's pages may change anything.
  app.use('*', async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const origin = c.req.header('origin')
    // This request's own origin, or PUBLIC_URL's (a proxy may pass another Host header on).
    if (!origin || (origin !== ctx.originOf(c) && origin !== (ctx.publicUrl && new URL(ctx.publicUrl).origin))) {
      const text = "This request did not come from the studio's own pages. Open the studio and try again."
      return c.req.path.startsWith('/studio/api/')
        ? refuse(c, 403, text)
        : c.html(messageView('Not allowed', text, { href: '/studio/', label: 'Open the studio' }), 403)
    }
    return next()
  })

  const formLimit = bodyLimit({ maxSize: 8 * 1024, onError: (c) => c.text('That form is too large.', 413) })
  app.post('/sign-in', formLimit)
  app.post('/api/session', formLimit)
  app.post('/invite/*', formLimit)
  app.post('/forgot-password', formLimit)

  // Local mode: its own paths only, the API bound to the page's token, and no one signs in.
  if (ctx.local) addLocalGate(app, ctx)
  // Everything not public needs a live session: the API answers 401, pages send the person to sign in.
  else
    app.use('*', async (c, next) => {
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
    })

  app.get('/pages.css', (c) =>
    c.body(pagesCss, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache' }),
  )
  if (!ctx.local) addAuthPages(app, ctx)
  addApi(app, ctx)
  addNewLaunch(app, ctx)
  addPreview(app, ctx)
  addClient(app, ctx)

  app.all('/api/*', (c) => refuse(c, 404, 'There is no such studio request.'))
  app.all('*', (c) =>
    c.html(
      messageView('Not found', 'There is no such page in the studio.', { href: '/studio/', label: 'Open the studio' }),
      404,
    ),
  )
  app.onError((error, c) => {
    ctx.log.error('studio: unexpected error', error)
    return c.req.path.startsWith('/studio/api/')
      ? refuse(c, 500, 'The studio could not do that just now. Please try again in a moment.')
      : c.html(
          messageView('Something went wrong', 'The studio could not do that just now. Please try again in a moment.'),
          500,
        )
  })

  return { app: app as unknown as Hono, recordDiskVersions: () => recordDiskVersions(ctx), leads: leadsAccessOf(ctx) }
}

const assetTypes: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  json: 'application/json',
  map: 'application/json',
}

/** The browser part's files (dist/_studio): the app, the preview frame's document and the hashed assets. */
function addClient(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const notBuilt = (c: Context) =>
    c.html(
      messageView(
        'The studio is not built',
        "The studio's page is missing from this server: run npm run build, then start the server again.",
      ),
      503,
    )
  function document(name: 'index.html' | 'preview.html'): string | undefined {
    try {
      return readFileSync(path.join(ctx.clientDir, name), 'utf8')
    } catch {
      return undefined
    }
  }
  const shell = (c: Context) => {
    if (new URL(c.req.url).pathname === '/studio') return c.redirect('/studio/', 301)
    const html = document('index.html')
    if (html === undefined) return notBuilt(c)
    return c.html(ctx.local ? withLocalToken(html, ctx.local) : html)
  }

  app.get('/', shell)
  app.get('/launches', shell)
  app.get('/launches/*', shell)
  app.get('/preview-frame', (c) => {
    const html = document('preview.html')
    return html === undefined ? notBuilt(c) : c.html(html)
  })
  app.get('/preview/:token', (c) => {
    const token = c.req.param('token')
    if (!previewTokenWorks(ctx, token)) {
      return c.html(
        messageView(
          'This preview link does not work',
          'It has expired or is not a real link. Ask whoever sent it for a new one.',
        ),
        404,
      )
    }
    const html = document('preview.html')
    if (html === undefined) return notBuilt(c)
    const meta = `<meta name="studio-preview-token" content="${escapeHtml(token)}">\n<meta name="robots" content="noindex, nofollow">\n`
    return c.html(html.replace(/<\/head>/i, () => `${meta}</head>`))
  })
  app.get('/assets/:file{.+}', (c) => {
    const file = c.req.param('file')
    if (file.split('/').some((part) => part === '..' || part.startsWith('.')) || file.includes('\\'))
      return c.text('Not Found', 404)
    let bytes: Buffer
    try {
      bytes = readFileSync(path.join(ctx.clientDir, 'assets', file))
    } catch {
      return c.text('Not Found', 404)
    }
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': assetTypes[file.split('.').pop() ?? ''] ?? 'application/octet-stream',
      // Vite names each built file by its content's hash: a new build is a new name.
      'cache-control': 'public, max-age=31536000, immutable',
    })
  })
}
