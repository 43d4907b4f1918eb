import type { Hono } from 'hono'
import { bearerAuth } from 'hono/bearer-auth'
import { timingSafeEqual } from 'hono/utils/buffer'
import { jsonAnswer, refusal } from '../registration/refusal.ts'
import { functionLeftCountsPath, type LeftCountsAnswer } from '../release/left-counts.ts'
import type { FunctionContext } from './context.ts'

// A transparent 1×1 GIF: the visit image's answer.
const visitImage = Uint8Array.from(atob('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'), (c) =>
  c.charCodeAt(0),
)

/**
 * POST <path>/deliver-pending with the outbox secret: delivers due notifications now (the scheduled retry on Supabase).
 */
export function mountOutboxTrigger(app: Hono, path: string, fn: FunctionContext): void {
  const trigger = fn.deps.outboxTrigger
  const wrongSecret = () => jsonAnswer(401, { error: 'Missing or wrong outbox secret.' })
  app.post(
    `${path}/deliver-pending`,
    bearerAuth({
      verifyToken: (token) => (trigger ? timingSafeEqual(trigger.secret, token) : false),
      noAuthenticationHeader: { message: wrongSecret },
      invalidAuthenticationHeader: { message: wrongSecret },
      invalidToken: { message: wrongSecret },
    }),
    async () => jsonAnswer(200, { ok: true, ...(await trigger!.run()) }),
  )
  app.all(`${path}/deliver-pending`, () => {
    throw refusal(405, 'Use POST.', { headers: { allow: 'POST' } })
  })
}

/** A page on a static host asks for this image (no script): a visit, counted as the Node server counts page views. */
export function mountVisitImage(app: Hono, path: string, fn: FunctionContext): void {
  const { deps, log } = fn
  app.get(`${path}/visit/:launch`, async (c) => {
    const slug = c.req.param('launch')
    const site = fn.launches.get(slug)?.site
    if (deps.visits && site && site.countVisits !== false) {
      deps.visits.countBeacon(c.req.raw, slug, deps.clientAddress?.(c) ?? '')
      if (deps.flushVisits)
        await deps.visits.flush().catch((error: unknown) => log.error('visit: could not store the count', error))
    }
    return new Response(visitImage, {
      headers: {
        'content-type': 'image/gif',
        'cache-control': 'no-store',
        'cross-origin-resource-policy': 'cross-origin',
        'x-content-type-options': 'nosniff',
      },
    })
  })
}

/**
 * GET <path>/left.json?launch=<slug>: what is left of a launch's inventory, for a page on a static host (no server of
 * ours beside it). The launch is named, never guessed: 400 without one, 404 for one not served here. Readable by the
 * launch's own pages (its origins, ALLOWED_ORIGINS, this host); the counts are the same for everyone.
 */
export function mountLeftCounts(app: Hono, path: string, fn: FunctionContext, answer: LeftCountsAnswer): void {
  app.get(`${path}${functionLeftCountsPath}`, async (c) => {
    const slug = c.req.query('launch')
    const launch = slug === undefined ? undefined : fn.launches.get(slug)
    const origin = c.req.header('origin')
    const allowed = origin !== undefined && launch ? launch.ownPages(origin, c) : null
    const headers: Record<string, string> = {
      vary: 'Origin',
      ...(allowed ? { 'access-control-allow-origin': allowed } : {}),
    }
    if (slug === undefined || slug === '')
      return jsonAnswer(400, { error: 'Name the launch: left.json?launch=<its slug>.' }, headers)
    if (!launch) return jsonAnswer(404, { error: 'There is no such launch here.' }, headers)
    return answer(c, launch.site.slug, headers)
  })
}
