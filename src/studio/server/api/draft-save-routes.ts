import type { Context, Hono } from 'hono'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import type { DraftHead, SaveDraftResponse, StudioError } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { fileText, problemsOf, studioProblems } from '../launches.ts'
import { launchFor } from './access.ts'
import { jsonBody, refuse, textLimit } from './respond.ts'

/** A moment as the refusal words it: "2026-11-25 14:05 UTC". */
function utcMoment(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

/**
 * The 409 of a save made from an older version: who saved the newer one, when, and its text (the live one if
 * published).
 */
async function conflictAnswer(c: Context<StudioEnv>, ctx: StudioContext, launch: ServedLaunch, head: DraftHead) {
  const draft = await ctx.store.getDraft(launch.slug)
  const text = draft?.text ?? (await ctx.store.latestVersion(launch.slug))?.text ?? fileText(launch) ?? ''
  return c.json<StudioError>(
    {
      error: `${head.by} saved a newer draft (version ${head.version}) at ${utcMoment(head.savedAt)}: your save was not made, so nothing of theirs was replaced.`,
      conflict: { ...head, text },
    },
    409,
  )
}

/**
 * PUT /api/launches/:slug/draft: saves the draft as the launch's next draft version, if it was made from the latest
 * one (`baseVersion`; absent: whatever the latest is). A save over a newer version, saved by someone else meanwhile,
 * is refused (409) with who saved it, when and their text: a team never silently overwrites one another (issue 44).
 */
export function addDraftSaveRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.put('/api/launches/:slug/draft', textLimit, async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const body = await jsonBody(c)
    if (typeof body?.text !== 'string') return refuse(c, 400, 'Send the draft as {"text": "…", "baseVersion": 3}.')
    const base = body.baseVersion
    if (base !== undefined && !(typeof base === 'number' && Number.isSafeInteger(base) && base >= 0))
      return refuse(c, 400, 'baseVersion is the draft version the text was made from: a whole number, 0 for none.')
    const who = c.get('account').email
    const now = ctx.clock()
    const version = await ctx.store.saveDraftFrom(launch.slug, body.text, who, now, base)
    if (version === undefined) {
      const head = await ctx.store.draftHead(launch.slug)
      if (head) return conflictAnswer(c, ctx, launch, head)
      return refuse(c, 409, 'The draft changed meanwhile: open the launch again.')
    }
    await ctx.audit(who, 'save draft', launch.slug, `version ${version}`)
    return c.json<SaveDraftResponse>({
      savedAt: now.toISOString(),
      problems: studioProblems(problemsOf(launch, body.text)),
      version,
    })
  })
}
