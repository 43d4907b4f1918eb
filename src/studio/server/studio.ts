import { Hono } from 'hono'
import { createSignInLimiter } from '../../server/registration/sign-in-limits.ts'
import { addApi } from './api.ts'
import { refuse } from './api/respond.ts'
import { addAuthPages } from './auth.ts'
import { studioContextOf, type StudioDeps, type StudioEnv } from './context.ts'
import { recordDiskVersions } from './launches.ts'
import { addNewLaunch } from './new-launch.ts'
import { addStudioGates } from './gates/studio-gates.ts'
import { addClient } from './client/client-files.ts'
import { leadsAccessOf, type StudioLeadsAccess } from './leads-sign-in.ts'
import { addPreview } from './preview.ts'
import { messageView, pagesCss } from './views.ts'

/**
 * The studio at /studio: the hosted editor's server part. Off (404 for every path) until an account exists
 * (`npm run studio:invite`). Pages that work without JavaScript for signing in (auth.ts), the JSON API of
 * src/studio/protocol.ts (api.ts, preview.ts), and the browser part built into dist/_studio (index.html, the app;
 * preview.html, the preview frame's document; assets/). Every state-changing request must come from this origin
 * (Origin header); every answer has a strict CSP and noindex.
 */

/**
 * What createStudio returns: the app to mount at the site's root (its routes start with /studio), and its start-up
 * step.
 */
export type Studio = {
  app: Hono
  /** Records each launch's file as a version "from disk" when it differs from the last one (call once at start). */
  recordDiskVersions(): Promise<number>
  /** Its sign-in and audit log for the leads page at /leads (leads-sign-in.ts). */
  leads: StudioLeadsAccess
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

  addStudioGates(app, ctx)

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
