import type { Hono } from 'hono'
import type { PresenceResponse } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { launchFor } from './access.ts'
import { jsonBody, refuse, smallLimit } from './respond.ts'

/**
 * An editor whose heartbeat (every 5 s, client/team/use-presence.ts) has not come for this long is no longer listed.
 */
export const presenceExpiryMs = 15_000

/**
 * POST /api/launches/:slug/presence, each open editor's heartbeat: who else has the launch open now (by name), and
 * the launch's latest draft version (so a newer draft saved by someone else is announced on the other editors' pages).
 * DELETE …/presence/:editor: the editor was closed.
 */
export function addPresenceRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.post('/api/launches/:slug/presence', smallLimit, async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const editor = (await jsonBody(c))?.editor
    if (typeof editor !== 'string' || !/^[A-Za-z0-9-]{8,64}$/.test(editor))
      return refuse(c, 400, 'Send this editor\'s id as {"editor": "…"} (8 to 64 letters, digits or dashes).')
    const who = c.get('account').email
    const now = ctx.clock()
    await ctx.store.markPresent(launch.slug, editor, who, now)
    const [present, head] = await Promise.all([
      ctx.store.listPresent(launch.slug, new Date(now.getTime() - presenceExpiryMs)),
      ctx.store.draftHead(launch.slug),
    ])
    const others = new Map<string, { who: string; since: string }>()
    for (const entry of present) {
      const name = entry.who === who ? `${who} (in another window)` : entry.who
      if (entry.editor !== editor && !others.has(name)) others.set(name, { who: name, since: entry.since })
    }
    return c.json<PresenceResponse>({ others: [...others.values()], ...(head ? { draft: head } : {}) })
  })

  app.delete('/api/launches/:slug/presence/:editor', async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    await ctx.store.forgetPresent(launch.slug, c.req.param('editor'), c.get('account').email)
    return c.json({ left: true })
  })
}
