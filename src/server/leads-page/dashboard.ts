import type { Context, Hono } from 'hono'
import type { LeadSearch, PulseStore } from '../store/store.ts'
import { dashboardView } from './dashboard-view.ts'
import { lastDays } from '../store/days.ts'
import type { LeadsFilter } from './sessions.ts'
import type { LeadsAudit, Viewer } from './viewers.ts'
import type { LaunchChoice, ViewContext } from './views.ts'

/**
 * The dashboard's routes: GET /leads/dashboard shows the pulse of the launch chosen in the session (or of every launch
 * the viewer may see), counted by the store in SQL; POST /leads/dashboard chooses the launch (kept in the session with
 * the list's filters, never in the URL) and answers with a redirect back.
 */

/** How many days the dashboard covers, today included. */
export const dashboardDays = 30

/** What the dashboard uses of the leads page. */
export type DashboardContext = {
  store: Pick<PulseStore, 'countPulse'>
  audit: LeadsAudit
  view: ViewContext
  clock: () => Date
  viewerOf(c: Context): Promise<Viewer | undefined>
  launchChoice(viewer: Viewer, filter: LeadsFilter): Promise<LaunchChoice>
  scopeOf(viewer: Viewer, choice: LaunchChoice): Pick<LeadSearch, 'launch' | 'launches'>
  studioLink(viewer: Viewer): boolean
}

/** Adds the dashboard to the leads page's app. */
export function addDashboardRoutes(app: Hono, ctx: DashboardContext): void {
  app.get('/leads/dashboard', async (c) => {
    const viewer = await ctx.viewerOf(c)
    if (!viewer) return c.redirect('/leads', 303)
    const choice = await ctx.launchChoice(viewer, viewer.filter)
    const pulse = await ctx.store.countPulse({
      ...ctx.scopeOf(viewer, choice),
      days: lastDays(ctx.clock(), dashboardDays, ctx.view.timeZone),
    })
    const launches = choice.selected
      ? `launch ${choice.selected}`
      : viewer.launches
        ? `the account's launches (${viewer.launches.join(', ') || 'none'})`
        : 'all launches'
    await ctx.audit({
      who: viewer.who,
      action: 'viewed the dashboard',
      launch: choice.selected || undefined,
      detail: launches,
    })
    return c.html(dashboardView(ctx.view, pulse, choice, ctx.studioLink(viewer)))
  })

  app.post('/leads/dashboard', async (c) => {
    const viewer = await ctx.viewerOf(c)
    if (!viewer) return c.redirect('/leads', 303)
    const body = await c.req.parseBody()
    const asked = typeof body.launch === 'string' ? body.launch.trim().slice(0, 200) : ''
    // Only a launch there is and the viewer may see; anything else means all of theirs.
    const choice = await ctx.launchChoice(viewer, { ...viewer.filter, launch: asked })
    await viewer.saveFilter({ ...viewer.filter, launch: choice.selected })
    return c.redirect('/leads/dashboard', 303)
  })
}
