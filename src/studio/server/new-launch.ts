import { rmSync } from 'node:fs'
import path from 'node:path'
import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { checkPageConfigText } from '../../config/check-page-config.ts'
import type { LaunchDetails } from '../../config/launch-details.ts'
import { createLaunch, LaunchError } from '../../config/new-launch.ts'
import type { NewLaunchResponse } from '../protocol.ts'
import { checkNewLaunch, type NewLaunchRequest } from './api/new-launch-fields.ts'
import { jsonBody, refuse } from './api/respond.ts'
import type { StudioContext, StudioEnv } from './context.ts'
import { studioProblems } from './launches.ts'

/**
 * POST /studio/api/launches: New launch. An owner or editor starts the next development as a copy of a launch they
 * may edit, with the checklist of `npm run new-launch` as fields (name, phone, e-mail, address, web address,
 * notification address, reply sender) written into the copy everywhere the old ones stand (src/config/new-launch.ts,
 * launch-details.ts). The copy is checked by the real checker before its folder is renamed into launches/<slug>/; it
 * is then served unpublished (503) until someone publishes it, and an editor limited to some launches gets it.
 */

/** Makes the launch's folder from a checked request and serves it; the refusal to send when it cannot. */
async function makeLaunch(ctx: StudioContext, c: Context<StudioEnv>, root: string, request: NewLaunchRequest) {
  const account = c.get('account')
  const { slug, slugField, source } = request
  try {
    createLaunch(slug, root, source!.configFile, {
      details: request.details as LaunchDetails,
      check: checkPageConfigText,
    })
  } catch (error) {
    if (!(error instanceof LaunchError)) throw error
    if (error.kind === 'problems') return refuse(c, 422, error.message, studioProblems(error.problems))
    const at = error.kind === 'source' ? 'from' : slugField
    return c.json({ error: error.message, fields: { [at]: error.message } }, error.kind === 'source' ? 422 : 409)
  }
  const served = ctx.publisher.add(slug)
  if (!served) {
    // A server given one config alone (PAGE_CONFIG) serves no other: the folder would be an orphan.
    rmSync(path.join(root, 'launches', slug), { recursive: true, force: true })
    return refuse(
      c,
      409,
      'This server serves one config only (PAGE_CONFIG is set), so it cannot serve a new launch. Start it without PAGE_CONFIG, or use npm run new-launch.',
    )
  }
  if (account.launches) await ctx.store.grantLaunch(account.id, slug)
  await ctx.audit(account.email, 'new launch', slug, `a copy of ${request.from}`)
  return c.json<NewLaunchResponse>({ slug, siteName: served.siteName, localUrl: served.localUrl }, 201)
}

/** Adds POST /api/launches to the studio app (mounted under /studio). */
export function addNewLaunch(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const limit = bodyLimit({ maxSize: 16 * 1024, onError: (c) => refuse(c, 413, 'That request is too large.') })

  app.post('/api/launches', limit, async (c: Context<StudioEnv>) => {
    const account = c.get('account')
    if (account.role === 'sales')
      return refuse(c, 403, 'A sales account has the leads page only: it cannot start launches.')
    const root = ctx.root
    if (root === undefined)
      return refuse(
        c,
        409,
        'This studio cannot start launches: it was started without the project folder. Use npm run new-launch instead.',
      )
    const request = checkNewLaunch(ctx, account, root, (await jsonBody(c)) ?? {})
    if (Object.keys(request.fields).length > 0 || !request.source)
      return c.json({ error: 'Some fields need a change: see the message at each one.', fields: request.fields }, 400)
    return makeLaunch(ctx, c, root, request)
  })
}
