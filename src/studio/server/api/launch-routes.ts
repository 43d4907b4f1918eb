import type { Hono } from 'hono'
import type { LaunchDetail } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { fileText, mayEdit, problemsOf, studioProblems, summaryOf } from '../launches.ts'
import { launchFor, salesHasLeadsOnly } from './access.ts'
import { refuse } from './respond.ts'

/** GET /api/launches (the list the account may edit) and GET /api/launches/:slug (its live text, draft, problems). */
export function addLaunchRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/api/launches', async (c) => {
    const account = c.get('account')
    if (account.role === 'sales') return refuse(c, 403, salesHasLeadsOnly)
    const launches = ctx.publisher.list().filter((launch) => mayEdit(account, launch.slug))
    return c.json(await Promise.all(launches.map((launch) => summaryOf(ctx, launch))))
  })

  app.get('/api/launches/:slug', async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const [summary, draft, live, head] = await Promise.all([
      summaryOf(ctx, launch),
      ctx.store.getDraft(launch.slug),
      ctx.store.latestVersion(launch.slug),
      ctx.store.draftHead(launch.slug),
    ])
    const liveText = live?.text ?? fileText(launch) ?? ''
    return c.json<LaunchDetail>({
      ...summary,
      liveText,
      ...(draft ? { draftText: draft.text } : {}),
      draftVersion: head?.version ?? 0,
      problems: studioProblems(problemsOf(launch, draft?.text ?? liveText)),
    })
  })
}
