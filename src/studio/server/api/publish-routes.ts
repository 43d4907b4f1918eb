import type { Context, Hono } from 'hono'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import type { PublishResponse } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { problemsOf, studioProblems } from '../launches.ts'
import { launchFor } from './access.ts'
import { jsonBody, messageOf, refuse, textLimit } from './respond.ts'

/** What a publication is: the text, its note, and the version it restores (if it does). */
export type Publication = { text: string; message: string | undefined; restoredFrom?: number | undefined }

/** The audit line's detail of a publication. */
function auditDetail(version: number, publication: Publication, warning: string | undefined): string {
  const { message, restoredFrom } = publication
  const from = restoredFrom === undefined ? '' : ` (from version ${restoredFrom})`
  return `version ${version}${from}${message ? `: ${message}` : ''}${warning ? " (the static host's command failed)" : ''}`
}

/**
 * Publishes a text as the launch's next version: refused (422, nothing changed) while it has problems or the
 * publisher refuses it; the draft goes when it is the text published.
 */
export async function publishText(
  ctx: StudioContext,
  c: Context<StudioEnv>,
  launch: ServedLaunch,
  publication: Publication,
) {
  const account = c.get('account')
  const { text, message, restoredFrom } = publication
  const problems = problemsOf(launch, text)
  if (problems.length) {
    const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`
    return refuse(
      c,
      422,
      `This text has ${count}: nothing was published. ${problems[0]!.message}`,
      studioProblems(problems),
    )
  }
  const result = await ctx.publisher.publish(launch.slug, text)
  if (!result.ok) {
    return refuse(
      c,
      422,
      `The launch could not be published: nothing was changed. ${result.problems[0]?.message ?? ''}`.trim(),
      studioProblems(result.problems),
    )
  }
  const at = ctx.clock().toISOString()
  const version = await ctx.store.addVersion({
    launch: launch.slug,
    text,
    by: account.email,
    at,
    message,
    fromDisk: false,
    restoredFrom,
  })
  const draft = await ctx.store.getDraft(launch.slug)
  if (draft?.text === text) await ctx.store.deleteDraft(launch.slug)
  const action = restoredFrom === undefined ? 'publish' : 'restore'
  await ctx.audit(account.email, action, launch.slug, auditDetail(version, publication, result.warning))
  return c.json<PublishResponse>({ version, ms: result.ms, ...(result.warning ? { warning: result.warning } : {}) })
}

/** POST /api/launches/:slug/publish: the text sent, else the saved draft. */
export function addPublishRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.post('/api/launches/:slug/publish', textLimit, async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const body = (await jsonBody(c)) ?? {}
    const text = typeof body.text === 'string' ? body.text : (await ctx.store.getDraft(launch.slug))?.text
    if (text === undefined) return refuse(c, 400, 'There is no draft to publish: save a draft first.')
    return publishText(ctx, c, launch, { text, message: messageOf(body) })
  })
}
