import type { Hono } from 'hono'
import { lastDays } from '../../store/days.ts'
import type { LeadsContext } from '../context.ts'
import { dashboardView, readDeliveryHealth } from '../dashboard-view.ts'
import { launchChoice, scopeOf } from '../lead-search.ts'
import { studioLink } from '../viewers.ts'

/**
 * The dashboard's routes: GET /leads/dashboard shows the pulse of the launch chosen in the session (or of every launch
 * the viewer may see), counted by the store in SQL, and how the server's e-mail stands; POST /leads/dashboard chooses
 * the launch (kept in the session with the list's filters, never in the URL) and answers with a redirect back.
 */

/** How many days the dashboard covers, today included. */
export const dashboardDays = 30

/** Adds the dashboard to the leads page's app. */
export function addDashboardRoutes(app: Hono, ctx: LeadsContext): void {
  app.get('/leads/dashboard', async (c) => {
    const viewer = await ctx.viewerOf(c)
    if (!viewer) return c.redirect('/leads', 303)
    const choice = await launchChoice(ctx, viewer, viewer.filter)
    const pulse = await ctx.store.countPulse({
      ...scopeOf(viewer, choice),
      days: lastDays(ctx.clock(), dashboardDays, ctx.view.timeZone),
    })
    const mail = await readDeliveryHealth(ctx.store, ctx.clock())
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
    return c.html(dashboardView(ctx.view, pulse, choice, studioLink(viewer), mail))
  })

  app.post('/leads/dashboard', async (c) => {
    const viewer = await ctx.viewerOf(c)
    if (!viewer) return c.redirect('/leads', 303)
    const body = await c.req.parseBody()
    const asked = typeof body.launch === 'string' ? body.launch.trim().slice(0, 200) : ''
    // Only a launch there is and the viewer may see; anything else means all of theirs.
    const choice = await launchChoice(ctx, viewer, { ...viewer.filter, launch: asked })
    await viewer.saveFilter({ ...viewer.filter, launch: choice.selected })
    return c.redirect('/leads/dashboard', 303)
  })
}
