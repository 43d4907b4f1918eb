import type { Hono } from 'hono'
import type { CheckResponse } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { problemsOf, studioProblems } from '../launches.ts'
import { launchFor } from './access.ts'
import { jsonBody, refuse, textLimit } from './respond.ts'

/**
 * DELETE /api/launches/:slug/draft (one draft a launch; PUT, saving it from a version, is draft-save-routes.ts), and
 * POST …/check (a text's problems, nothing kept).
 */
export function addDraftRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.delete('/api/launches/:slug/draft', async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    await ctx.store.deleteDraft(launch.slug)
    await ctx.audit(c.get('account').email, 'discard draft', launch.slug)
    return c.json({ discarded: true })
  })

  app.post('/api/launches/:slug/check', textLimit, async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const body = await jsonBody(c)
    if (typeof body?.text !== 'string') return refuse(c, 400, 'Send the text to check as {"text": "…"}.')
    return c.json<CheckResponse>({ problems: studioProblems(problemsOf(launch, body.text)) })
  })
}
